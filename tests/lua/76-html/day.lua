-- day.lua HTML: the HTML report of a phase given 5,000 one-second
-- intervals, the 2,500th ten times the others' IOPS, written to HTML
local r = require("iomoon").run { name = "long", engine = "sim", bs = "4k", duration = "0.1s", interval = "20ms" }
local c, ivs = {}, {}
for k, v in pairs(r) do c[k] = v end
for i = 1, 5000 do
  local iv = r.intervals[1]
  ivs[i] = { t_s = i - 1, len_s = 1, iops = iv.iops * (i == 2500 and 10 or 1), mb_per_s = iv.mb_per_s,
    p50_ns = iv.p50_ns, p99_ns = iv.p99_ns, max_ns = iv.max_ns }
end
c.intervals = ivs
require("iomoon.report").write_atomic(arg[1], require("iomoon.report").html({ c }))
