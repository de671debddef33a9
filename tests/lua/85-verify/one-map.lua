-- one-map.lua DIR: run in DIR: k.dat written with crc32c, its block 3
-- copied aside, rewritten as ./k.dat, put back, and verified as DIR/k.dat;
-- prints the errors, the lost writes, and the first error's unit
local iomoon = require "iomoon"
local function dd(args) assert(os.execute("dd status=none conv=notrunc " .. args)) end
iomoon.run { target = { path = "k.dat", size = "1m" }, bs = "4k", read = 0, bytes = "1m", verify = "crc32c" }
dd("if=k.dat of=k.old bs=4096 skip=3 count=1")
iomoon.run { target = "./k.dat", bs = "4k", read = 0, region = { offset = 3 * 4096, size = 4096 }, ios = 1, verify = "crc32c" }
dd("if=k.old of=k.dat bs=4096 seek=3 count=1")
local r = iomoon.run { target = arg[1] .. "/k.dat", bs = "4k", verify = "crc32c", verify_only = true, on_error = "continue" }
print(r.errors, r.errors_by_errno.lost_write, r.first_error.unit_offset)
