-- sim.lua FILE: the sim device at 1 ms with QD 16, closed loop, then paced
-- at 2000 IOPS (about 2 in flight)
local iomoon = require "iomoon"
local t = { path = arg[1], size = "16m" }
iomoon.run { name = "closed", target = t, engine = "sim", sim_latency = "1ms", bs = "4k", random = 100, qd = 16, duration = "0.5s" }
iomoon.run { name = "paced", target = t, engine = "sim", sim_latency = "1ms", bs = "4k", random = 100, qd = 16, rate = 2000, duration = "0.5s" }
