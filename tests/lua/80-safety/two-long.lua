-- two-long.lua PATH: two phases of 20 s on a new 8 MiB file (the test
-- signals the first twice)
require("iomoon").run{target = {path = arg[1], size = "8m"}, bs = "4k", random = 100, duration = "20s"}
require("iomoon").run{target = arg[1], bs = "4k", duration = "20s"}
