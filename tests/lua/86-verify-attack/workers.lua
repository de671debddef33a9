-- workers.lua: 4 workers write m.dat at random with crc32c; prints whether
-- over 500 units hold a header, and how many name a worker other than the
-- one whose quarter holds them or another offset; then whether 8 workers
-- writing 256 KiB in 64 KiB blocks ran, and whether they were refused
-- naming phase.workers
local iomoon = require "iomoon"
local r = iomoon.run { target = { path = "m.dat", size = "4m" }, workers = 4, qd = 8, bs = "4k", read = 0,
  random = 100, ios = 4000, verify = "crc32c" }
assert(r.errors == 0)
local f = assert(io.open("m.dat", "rb"))
local wrong, seen = 0, 0
for u = 0, 1023 do
  f:seek("set", u * 4096)
  local magic, _, off, _, _, worker = string.unpack("<I4I4I8I8I4I2", f:read(32))
  if magic == 0x564d4f49 then
    seen = seen + 1
    if worker ~= u // 256 or off ~= u * 4096 then wrong = wrong + 1 end
  end
end
print(seen > 500, wrong)
local ok, e = pcall(iomoon.run, { target = "m.dat", workers = 8, bs = "64k", read = 0, region = "256k", ios = 8, verify = "crc32c" })
print(ok, tostring(e):match("phase%.workers: 8 workers writing with verification get a slice") ~= nil)
