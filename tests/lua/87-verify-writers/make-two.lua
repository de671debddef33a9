-- make-two.lua: creates two.dat (4 MiB) in the current directory
require("iomoon").run { target = { path = "two.dat", size = "4m" }, bs = "4k", ios = 1 }
