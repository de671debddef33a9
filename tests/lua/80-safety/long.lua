-- long.lua PATH: 20 s of random reads on a new 8 MiB file (the test
-- signals it)
require("iomoon").run{target = {path = arg[1], size = "8m"}, bs = "4k", random = 100, duration = "20s"}
