-- sync-every.lua ENGINE PATH DIRECT: 120 sequential writes at qd 1 with an
-- fdatasync every 4; prints the writes, syncs, the call, its every, the
-- errors, the I/Os and whether a sync's latency was measured
local iomoon = require "iomoon"
local r = iomoon.run{ engine = arg[1], target = { path = arg[2], size = '4m' }, bs = '4k',
  read = 0, random = 0, qd = 1, ios = 120, fdatasync = 4, direct = arg[3] == "true" }
print(r.write.ios, r.sync.ios, r.sync.call, r.sync.every, r.errors, r.ios, r.sync.lat.max_ns > 0)
