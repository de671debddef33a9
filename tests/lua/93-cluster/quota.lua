-- quota.lua: bytes quotas of 12k and 20k and an ios quota of 7 over the
-- cluster; each rank writes what it did to quota.RANK
local iomoon = require "iomoon"
local out = {}
for _, b in ipairs { "12k", "20k" } do
  local r = iomoon.run { name = "q" .. b, engine = "sim", bs = "4k", bytes = b, duration = "5s" }
  out[#out + 1] = string.format("%s:%d:%d", b, r.ios, r.read.bytes)
end
local r = iomoon.run { name = "qios", engine = "sim", bs = "4k", ios = 7, workers = 2, duration = "5s" }
out[#out + 1] = "ios7:" .. r.ios .. ":" .. r.hosts[1].ios .. "+" .. r.hosts[2].ios
local f = assert(io.open("quota." .. iomoon.cluster.rank, "w")); f:write(table.concat(out, " ")); f:close()
