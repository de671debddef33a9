-- units-512.lua FILE: 1536-byte blocks written with crc32c, one byte zeroed
-- in the 8th 512-byte unit, read back; prints the errors and the first
-- one's unit
local iomoon = require "iomoon"
local file = arg[1]
local t = { path = file, size = "1m" }
iomoon.run { target = t, bs = "1536", read = 0, bytes = 1536 * 600, verify = "crc32c" }
os.execute("dd status=none conv=notrunc if=/dev/zero of=" .. file .. " bs=1 seek=" .. (512 * 7 + 100) .. " count=1")
local r = iomoon.run { target = t, bs = "1536", verify = "crc32c", verify_only = true, on_error = "continue", bytes = 1536 * 600 }
print(r.errors, r.first_error.unit_offset)
