-- report.lua: a phase without streams (200 I/Os: nothing of it is timed),
-- then one of three streams on sim, one of them paced at a rate it cannot
-- meet
local iomoon = require "iomoon"
iomoon.run { name = "plain", engine = "sim", bs = "4k", ios = 200 }
-- sim at 1 ms: a slot does 1000 IOPS, and a worker waiting for one sleeps
iomoon.run { name = "pg", engine = "sim", sim_latency = "1ms", bs = "4k", duration = 0.5, streams = {
  { name = "data", qd = 1, rate = 5000 }, -- 1000 IOPS at most at QD 1: not met
  { name = "wal", read = 0, bs = "8k", rate = 200 },
  { name = "scan" },
} }
