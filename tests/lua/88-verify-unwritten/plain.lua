-- plain.lua: phase "plain" reads t.dat without verification
require("iomoon").run { name = "plain", target = "t.dat", bs = "4k", read = 100, ios = 10 }
