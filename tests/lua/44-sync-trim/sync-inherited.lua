-- sync-inherited.lua: a phase's fsync = 2 over three streams, the second
-- giving fdatasync = 4, the third only reading; prints each stream's sync
local iomoon = require "iomoon"
local r = iomoon.run{ engine = 'null', bs = '4k', read = 0, qd = 1, fsync = 2, streams = {
  { ios = 40 }, { ios = 40, fdatasync = 4 }, { ios = 40, bs = '4k', read = 100 } } }
print(r.streams[1].sync.call, r.streams[1].sync.ios, r.streams[2].sync.call, r.streams[2].sync.ios, r.streams[3].sync)
