-- units-512.lua: m.dat written and verified in 1536-byte blocks (512-byte
-- units), then read and written at random; prints the errors and counts of
-- the verification, then of the mixed phase
local iomoon = require "iomoon"
local r = iomoon.run { target = { path = "m.dat", size = "4m" }, bs = "1536", read = 0, random = 0, bytes = 1536 * 100,
  verify = "crc32c" }
r = iomoon.run { target = "m.dat", bs = "1536", verify = "crc32c", verify_only = true, bytes = 1536 * 200 }
local v = r.verify
print(r.errors, v.units_checked, v.units_unwritten, v.unit_bytes, v.written_end_bytes)
r = iomoon.run { target = "m.dat", bs = "4k", read = 50, random = 100, ios = 2000, verify = "crc32c", skip_unwritten = false }
v = r.verify
print(r.errors, v.units_checked + v.units_unwritten == r.read.ios * 8, v.units_unexpected)
