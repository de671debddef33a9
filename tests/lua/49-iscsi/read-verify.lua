-- read-verify.lua LUN: 2000 random reads of the first 4 MiB verifying the
-- offset pattern; prints the reads and errors
local iomoon = require "iomoon"
local r = iomoon.run{ target = arg[1], bs = '4k', read = 100, random = 100, qd = 4,
  region = '4m', ios = 2000, verify = 'offset' }
print(r.read.ios, r.errors)
