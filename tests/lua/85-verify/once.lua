-- once.lua FILE: 1 MiB written with crc32c, two units corrupted, verified
-- in 4 KiB and in 64 KiB; prints for each the I/Os, errors and corrupt
-- units, then the first error's message
local iomoon = require "iomoon"
local file = arg[1]
local function dd(args) assert(os.execute("dd status=none conv=notrunc " .. args)) end
iomoon.run { target = { path = file, size = "1m" }, bs = "4k", read = 0, bytes = "1m", verify = "crc32c" }
dd("if=/dev/urandom of=" .. file .. " bs=1 seek=100 count=4")
dd("if=/dev/urandom of=" .. file .. " bs=1 seek=" .. (200 * 4096 + 4000) .. " count=4")
local r = iomoon.run { target = file, bs = "4k", qd = 4, verify = "crc32c", verify_only = true, on_error = "continue" }
print(r.ios, r.errors, r.errors_by_errno.corrupt)
r = iomoon.run { target = file, bs = "64k", verify = "crc32c", verify_only = true, on_error = "continue" }
print(r.ios, r.errors, r.errors_by_errno.corrupt)
print(r.first_error.message)
