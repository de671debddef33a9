-- trim-file.lua ENGINE PATH QD: trims the whole 8 MiB file in 64 KiB; prints
-- the trims, writes, how they were done and the errors
local iomoon = require "iomoon"
local r = iomoon.run{ engine = arg[1], target = { path = arg[2], allow_write = true },
  bs = '64k', read = 0, trim = 100, random = 0, qd = tonumber(arg[3]), bytes = '8m' }
print(r.trim.ios, r.write.ios, r.trim.how, r.errors)
