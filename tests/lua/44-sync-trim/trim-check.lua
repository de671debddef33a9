-- trim-check.lua PATH: prints iomoon.check of a trim phase on the file
print(require("iomoon").check{ target = { path = arg[1], allow_write = true }, bs = "4k", read = 0, trim = 50, ios = 10 })
