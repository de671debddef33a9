-- quota.lua: a paced stream of 100 I/Os (1000 IOPS) beside a slower one of
-- 600 on sim at 1 ms: the paced one ends at 0.1 s, the phase at 0.6 s
local iomoon = require "iomoon"
iomoon.run { name = "two", engine = "sim", sim_latency = "1ms", region = "64m", streams = {
  { name = "paced", rate = 1000, ios = 100, bs = "4k", random = 100 },
  { name = "slow", ios = 600, bs = "4k", random = 100 },
} }
