-- fsync.lua LUN: 120 writes at qd 1 at 48 MiB, an fsync every 4; prints the
-- writes, syncs and errors
local iomoon = require "iomoon"
local r = iomoon.run { target = { path = arg[1], allow_write = true }, bs = '4k', read = 0,
  qd = 1, ios = 120, fsync = 4, region = { offset = '48m', size = '4m' } }
print(r.write.ios, r.sync.ios, r.errors)
