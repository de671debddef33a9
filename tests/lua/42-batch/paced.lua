-- paced.lua: sim paced at 1000 I/Os a second for 0.5 s, batch auto; prints
-- the batch, whether 3 submissions in 4 or more were of one I/O, the
-- submissions and their histogram
local iomoon = require "iomoon"
local r = iomoon.run{engine = "sim", sim_latency = "200us", qd = 16, bs = "4k", rate = 1000, duration = 0.5}
local s = r.submit_sizes
print(r.batch, s.hist[1] >= 0.75 * s.count and "mostly-alone" or "batched", s.count, table.concat(s.hist, ","))
