-- Compressible data written with crc32c headers, then read back and
-- checked: prints the reading phase's errors and the units it checked.
local iomoon = require "iomoon"
local t = iomoon.target { path = arg[1], size = "4m" }
iomoon.run { target = t, bs = "64k", read = 0, random = 0, ios = 64, compress = 2, verify = "crc32c" }
local r = iomoon.run { target = t, bs = "64k", verify = "crc32c", verify_only = true }
print(r.errors, r.verify.units_checked)
