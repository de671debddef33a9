-- too-large.lua PATH: a target of 32 TiB, not filled (larger than the
-- file system takes: refused)
require("iomoon").target{path = arg[1], size = "32t", fill = false}
