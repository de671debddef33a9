-- merge.lua: a rate-paced phase on every rank; each writes its I/Os'
-- latencies to lat.RANK and its result to res.RANK.json
local iomoon = require "iomoon"
local json = require "iomoon.json"
local rank = iomoon.cluster.rank
local r = iomoon.run { name = "merge", engine = "sim", sim_latency = "200us", bs = "4k", qd = 8, workers = 2,
  rate = 4000, duration = "2s", interval = "0.25s", trace = 100000 }
local f = assert(io.open(string.format("lat.%d", rank), "w"))
for _, v in ipairs(r.trace.lat_ns) do f:write(v, "\n") end
f:close()
r.trace = nil
f = assert(io.open(string.format("res.%d.json", rank), "w"))
f:write(json.encode(r))
f:close()
