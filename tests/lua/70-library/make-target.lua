-- make-target.lua PATH [SIZE]: creates a target of SIZE (32 MiB) there
require("iomoon").target{path = arg[1], size = arg[2] or "32m"}
