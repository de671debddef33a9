-- A custom workload: a file server's traffic as an IOMeter access-spec mix,
-- hot spots from a zipf distribution, and a little think time per slot.
--
--   iomoon run examples/custom-workload.lua TARGET [TIME]
local iomoon = require "iomoon"

local path, time = arg[1] or "iomoon-example.dat", arg[2] or "30s"
-- an existing file or device is used at its own size; a new file is made at 1 GiB
local t = iomoon.target { path = path, size = not io.open(path) and "1g" or nil }

local r = iomoon.run {
  name = "file server",
  target = t, qd = 16, duration = time,
  mix = {
    { bs = { { "4k", 60 }, { "64k", 40 } }, read = 80, random = 100, weight = 70 }, -- small files, metadata
    { bs = "512k", read = 95, random = 0, weight = 30 },                          -- large files, streamed
  },
  dist = "zipf:1.1",          -- a few files are hot
  think = { uniform = { "50us", "200us" } },
}
print(string.format("%.0f IOPS, %.1f MB/s, p99 %.3f ms, %d errors",
  r.iops, r.mb_per_s, r.lat.p99_ns / 1e6, r.errors))
