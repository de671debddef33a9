-- stall.lua: each rank writes its pid to spid.RANK, runs a paced phase of
-- 2 s (the test stops one rank for a while) and writes to stall.RANK its
-- intervals, how many go back in time, how many are off length, and
-- whether they add up
local iomoon = require "iomoon"
local f = assert(io.open("/proc/self/stat")); local pid = f:read("n"); f:close()
f = assert(io.open("spid." .. iomoon.cluster.rank, "w")); f:write(pid); f:close()
local r = iomoon.run { name = "stall", engine = "sim", bs = "4k", rate = 2000, duration = "2s", interval = "0.1s" }
local back, short, sum = 0, 0, 0
for i, iv in ipairs(r.intervals) do
  if i > 1 and iv.t_s <= r.intervals[i - 1].t_s then back = back + 1 end
  if iv.len_s < 0.099 or iv.len_s > 0.101 then short = short + 1 end
  sum = sum + iv.ios
end
f = assert(io.open("stall." .. iomoon.cluster.rank, "w"))
f:write(#r.intervals, " ", back, " ", short, " ", sum == r.ios and "sum" or "nosum")
f:close()
