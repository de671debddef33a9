-- long.lua TARGET DURATION: one paced phase on null in 10 ms intervals
-- (exported wherever the command line says).
local iomoon = require "iomoon"
iomoon.run { name = "long", target = arg[1], engine = "null", bs = "4k", duration = arg[2], interval = "10ms",
  rate = { iops = 2000 } }
