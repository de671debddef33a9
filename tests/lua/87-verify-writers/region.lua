-- region.lua DEVICE OFFSET SIZE [SECONDS]: SECONDS (3) of random writes
-- with crc32c over that region of the device, by 2 workers, then the
-- region verified; prints "wrote" and the errors, then "verified", the
-- I/Os and errors
local iomoon = require "iomoon"
local device = arg[1]
local region = { offset = tonumber(arg[2]), size = arg[3] }
local r = iomoon.run { target = { path = device, allow_write = true }, region = region, bs = "4k", read = 0,
  random = 100, qd = 8, workers = 2, duration = tonumber(arg[4]) or 3, verify = "crc32c" }
print("wrote", r.errors)
r = iomoon.run { target = device, region = region, bs = "64k", qd = 4, verify = "crc32c", verify_only = true,
  on_error = "continue" }
print("verified", r.ios, r.errors)
