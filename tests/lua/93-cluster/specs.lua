-- specs.lua: streams whose named specs differ per rank (1 + 0 on rank 0,
-- 0 + 31 on rank 1)
local iomoon = require "iomoon"
local function named(n)
  local m = {}
  for i = 1, n do m[i] = { name = "s" .. i, bs = "4k", weight = i == 1 and 100 - 3 * (n - 1) or 3 } end
  return m
end
local a, b = { name = "a", qd = 1, bs = "4k" }, { name = "b", qd = 1, bs = "4k" }
if iomoon.cluster.rank == 0 then a = { name = "a", qd = 1, mix = named(1) } else b = { name = "b", qd = 1, mix = named(31) } end
iomoon.run { name = "specs", engine = "sim", duration = "0.2s", streams = { a, b } }
