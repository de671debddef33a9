-- discard.lua ENGINE DEVICE OFFSET-MIB: trims 8 MiB of the device from
-- OFFSET-MIB in 1 MiB; prints the trims, how they were done and the errors
local iomoon = require "iomoon"
local r = iomoon.run{ engine = arg[1], target = { path = arg[2], allow_write = true },
  bs = '1m', read = 0, trim = 100, random = 0, bytes = '8m', region = { offset = arg[3] .. 'm', size = '8m' } }
print(r.trim.ios, r.trim.how, r.errors)
