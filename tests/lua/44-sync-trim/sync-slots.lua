-- sync-slots.lua PATH: 200 writes at qd 4 with an fsync every 5 of a slot;
-- prints the call, whether there were 36 to 40 syncs, and the writes
local iomoon = require "iomoon"
local r = iomoon.run{ engine = 'io_uring', target = { path = arg[1], size = '4m' }, bs = '4k',
  read = 0, qd = 4, ios = 200, fsync = 5 }
print(r.sync.call, r.sync.ios <= 40 and r.sync.ios >= 36, r.write.ios)
