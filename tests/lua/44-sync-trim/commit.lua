-- commit.lua ENGINE PATH EVERY [SIM_LATENCY]: 60 sequential writes at qd 2
-- with an fdatasync every EVERY writes of a slot; prints the commits (nil
-- without result.commit), whether each write had its commit, the least
-- commit against a write's and a sync's service time (sim: each at least
-- SIM_LATENCY), and whether the commits' mean is at least the writes' plus
-- the syncs' (each commit holds its write and its sync, and the wait between)
local iomoon = require "iomoon"
local r = iomoon.run{ engine = arg[1], target = { path = arg[2], size = '4m' }, bs = '4k', read = 0, random = 0,
  qd = 2, ios = 60, fdatasync = tonumber(arg[3]), sim_latency = arg[4] }
local c = r.commit
if not c then print(nil, r.sync.ios) return end
local floor = arg[4] and 2 * iomoon.duration(arg[4]) or 0
print(c.ios, c.ios == r.write.ios and c.ios == r.sync.ios, c.lat.min_ns >= floor,
  c.lat.mean_ns + 1 >= r.write.lat.mean_ns + r.sync.lat.mean_ns, c.lat.p99_ns >= c.lat.p50_ns)
