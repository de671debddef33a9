-- crc32c-write.lua LUN: 2 MiB written with crc32c at 8 MiB; prints the
-- writes and errors
local iomoon = require "iomoon"
local r = iomoon.run{ target = { path = arg[1], allow_write = true }, bs = '16k', read = 0,
  random = 0, qd = 4, region = { offset = '8m', size = '2m' }, bytes = '2m', verify = 'crc32c' }
print(r.write.ios, r.errors)
