-- One sequential pass of 64 KiB writes over a 4 MiB file (written once),
-- then what result.data says the disk holds: arg[1] the file, then phase
-- fields as key=value. Prints written_once, dedupe_measured,
-- dedupe_sectors, and LZ4, zstd and zlib on the first 128 KiB record
-- (record_128k_*), LZ4 and zstd on the first 1 MiB (record_1m_*).
local iomoon = require "iomoon"
local p = { target = { path = arg[1], size = "4m" }, bs = "64k", read = 0, random = 0, qd = 4, ios = 64 }
for i = 2, #arg do
  local k, v = arg[i]:match("^([%w_]+)=(.*)$")
  p[k] = tonumber(v) or v
end
local d = iomoon.run(p).data
print(tostring(d.written_once), string.format("%.4f %.4f %.4f %.4f %.4f %.4f %.4f", d.dedupe_measured,
  d.dedupe_sectors, d.record_128k_lz4, d.record_128k_zstd, d.record_128k_zlib, d.record_1m_lz4,
  d.record_1m_zstd))
