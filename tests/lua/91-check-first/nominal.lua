-- nominal.lua: sim on a nominal 64 KiB region, 40 sequential I/Os traced
local r = require("iomoon").run { engine = "sim", region = "64k", bs = "4k", random = 0, ios = 40, trace = 40 }
