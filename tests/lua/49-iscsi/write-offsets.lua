-- write-offsets.lua LUN: 4 MiB of the offset pattern written sequentially in
-- 64 KiB; prints the writes, errors and the engine
local iomoon = require "iomoon"
local r = iomoon.run{ target = { path = arg[1], allow_write = true }, bs = '64k', read = 0,
  random = 0, qd = 8, region = '4m', bytes = '4m', pattern = 'offset' }
print(r.write.ios, r.errors, r.engine)
