-- trim-mix.lua PATH: 2000 random I/Os, 20 % reads, 30 % trims, 50 % writes;
-- prints whether the ops add up, whether the trims are 450 to 750, the I/Os
local iomoon = require "iomoon"
local r = iomoon.run{ target = { path = arg[1], allow_write = true }, bs = '4k', read = 20,
  trim = 30, random = 100, ios = 2000, qd = 4 }
print(r.read.ios + r.write.ios + r.trim.ios == r.ios, r.trim.ios > 450 and r.trim.ios < 750, r.ios)
