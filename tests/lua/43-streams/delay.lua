-- delay.lua: a stream that starts 0.3 s late with a schedule of 0.3 s at
-- 1000 IOPS then 0.3 s at 3000, beside a plain paced one, on sim: its
-- schedule counts from its own start (its first segment is its first),
-- and the phase lasts until that schedule ends (0.9 s)
local iomoon = require "iomoon"
iomoon.run { name = "delay", engine = "sim", sim_latency = "50us", bs = "4k", interval = "0.3s", streams = {
  { name = "late", start_delay = "0.3s", qd = 8,
    schedule = { { duration = "0.3s", iops = 1000 }, { duration = "0.3s", iops = 3000 } } },
  { name = "plain", qd = 1, rate = 100 },
} }
