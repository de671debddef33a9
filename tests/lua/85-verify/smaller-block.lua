-- smaller-block.lua FILE: 1 MiB written with crc32c in 4 KiB units; prints
-- whether verifying with 512-byte blocks ran and whether it was refused
-- naming phase.bs; then the I/Os and errors of verifying in 8 KiB
local iomoon = require "iomoon"
local file = arg[1]
iomoon.run { target = { path = file, size = "1m" }, bs = "64k", read = 0, bytes = "1m", verify = "crc32c" }
local ok, e = pcall(iomoon.run, { target = file, bs = 512, verify = "crc32c", verify_only = true })
print(ok, tostring(e):match("phase%.bs: 512") ~= nil)
local r = iomoon.run { target = file, bs = "8k", verify = "crc32c", verify_only = true }
print(r.ios, r.errors)
