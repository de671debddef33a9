-- damage.lua FILE OLD: FILE (16 MiB) written with crc32c and verified
-- clean; then damaged with dd (OLD holds an old copy of block 100): block
-- 100 put back to its old copy, bytes corrupted in blocks 200 and 333,
-- block 401 copied over block 400; and verified again. Prints "clean", the
-- I/Os and errors; "damaged", the errors and their kinds; then each error's
-- kind and block.
local iomoon = require "iomoon"
local file, old = arg[1], arg[2]
local t = { path = file, size = "16m" }
local function dd(args) assert(os.execute("dd status=none conv=notrunc " .. args)) end
local r = iomoon.run { target = t, bs = "64k", read = 0, bytes = "16m", qd = 4, verify = "crc32c" }
assert(r.errors == 0 and r.bytes == 16 << 20, "write pass")
r = iomoon.run { target = t, bs = "4k", qd = 4, verify = "crc32c", verify_only = true }
print("clean", r.ios, r.errors)
-- an old copy of block 100, then block 100 rewritten, then the old copy put back: a lost write
dd("if=" .. file .. " of=" .. old .. " bs=4096 skip=100 count=1")
r = iomoon.run { target = t, bs = "4k", read = 0, region = { offset = 100 * 4096, size = 4096 }, ios = 1, verify = "crc32c" }
assert(r.ios == 1)
dd("if=" .. old .. " of=" .. file .. " bs=4096 seek=100 count=1")
-- bytes corrupted in blocks 200 and 333, block 401 copied over block 400
dd("if=/dev/urandom of=" .. file .. " bs=1 seek=" .. (200 * 4096 + 1000) .. " count=8")
dd("if=/dev/zero of=" .. file .. " bs=1 seek=" .. (333 * 4096 + 4095) .. " count=1")
dd("if=" .. file .. " of=" .. file .. " bs=4096 skip=401 seek=400 count=1")
r = iomoon.run { target = t, bs = "4k", qd = 1, verify = "crc32c", verify_only = true, on_error = "continue" }
print("damaged", r.errors, r.errors_by_errno.corrupt, r.errors_by_errno.misdirected, r.errors_by_errno.lost_write)
for _, e in ipairs(r.first_errors) do print(e.kind, e.unit_offset // 4096) end
