-- make-target.lua PATH: creates a 32 MiB target there
require("iomoon").target{path = arg[1], size = "32m"}
