-- trim-ramfs.lua PATH: trims asked of a file on ramfs, which cannot punch
-- holes (refused)
require("iomoon").run{ target = { path = arg[1], allow_write = true }, bs = "4k", read = 0, trim = 50, ios = 10, direct = false }
