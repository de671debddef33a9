-- One sequential pass of writes over a 4 MiB file (each block written
-- once, so the file holds what was written, unless the fields given say
-- otherwise): arg[1] the file, arg[2] the block size, then phase fields as
-- key=value (size=: the file's size, and the pass's). Prints result.data's
-- units, distinct, dedupe_measured, compress_measured,
-- dedupe_check_failed, written_once.
local iomoon = require "iomoon"
local bs = iomoon.size(arg[2])
local p = { target = { path = arg[1], size = "4m" }, bs = bs, read = 0, random = 0, qd = 4 }
for i = 3, #arg do
  local k, v = arg[i]:match("^([%w_]+)=(.*)$")
  if k == "size" then p.target.size = v else p[k] = tonumber(v) or v end
end
p.ios = p.ios or iomoon.size(p.target.size) // bs
local d = iomoon.run(p).data
print(d.units, d.distinct, string.format("%.2f %.2f", d.dedupe_measured, d.compress_measured),
      d.dedupe_check_failed or 0, tostring(d.written_once))
