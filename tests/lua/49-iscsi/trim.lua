-- trim.lua LUN: the first 2 MiB trimmed in 64 KiB; prints the trims, the
-- bytes trimmed and the errors
local iomoon = require "iomoon"
local r = iomoon.run{ target = { path = arg[1], allow_write = true }, bs = '64k', read = 0,
  trim = 100, random = 0, qd = 4, region = '2m', bytes = '2m' }
print(r.trim.ios, r.trim.bytes, r.errors)
