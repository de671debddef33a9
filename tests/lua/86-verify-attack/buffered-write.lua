-- buffered-write.lua: mnt/f.dat (1 MiB) written buffered with crc32c
local iomoon = require "iomoon"
local r = iomoon.run { target = { path = "mnt/f.dat", size = "1m" }, bs = "4k", read = 0, bytes = "1m", direct = false, verify = "crc32c" }
assert(r.errors == 0 and not r.failed)
