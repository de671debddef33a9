-- mpi.lua: under mpirun, each rank writes (rank + 1) x 128 KiB of its own
-- 1 MiB r.RANK with crc32c and verifies it; prints the errors, the units
-- checked and never written, and the written area's end, over all ranks
local iomoon = require "iomoon"
local rank = iomoon.cluster.rank
local t = { path = "r.{rank}", size = "1m" }
iomoon.run { name = "w", target = t, bs = "4k", read = 0, random = 0, bytes = (rank + 1) * 256 * 1024, verify = "crc32c" }
local r = iomoon.run { name = "v", target = t, bs = "4k", verify = "crc32c", verify_only = true }
local v = r.verify
print(r.errors, v.units_checked, v.units_unwritten, v.written_end_bytes)
