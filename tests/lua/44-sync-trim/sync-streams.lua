-- sync-streams.lua PATH: two streams that sync differently (fdatasync = 1
-- opened O_DSYNC; fsync = 8); prints the phase's sync call, every, syncs
-- and open_sync, then each stream's call, syncs and open_sync
local iomoon = require "iomoon"
local r = iomoon.run{ target = { path = arg[1], size = '8m' }, bs = '4k', read = 0, random = 0,
  streams = { { ios = 100, fdatasync = 1, sync = 'dsync', region = { offset = 0, size = '4m' } },
    { ios = 96, fsync = 8, region = { offset = '4m', size = '4m' } } } }
print(r.sync.call, r.sync.every, r.sync.ios, r.open_sync, r.streams[1].sync.call, r.streams[1].sync.ios,
  r.streams[1].open_sync, r.streams[2].sync.call, r.streams[2].sync.ios, r.streams[2].open_sync)
