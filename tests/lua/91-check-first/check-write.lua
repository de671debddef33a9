-- check-write.lua PATH: prints iomoon.check of a phase writing PATH
print(require("iomoon").check{ target = { path = arg[1], allow_write = true }, bs = "4k", read = 0, ios = 10 })
