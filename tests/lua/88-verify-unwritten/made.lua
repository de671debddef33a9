-- made.lua: creates i.dat (64 MiB)
require("iomoon").run { target = { path = "i.dat", size = "64m" }, bs = "4k", ios = 1 }
