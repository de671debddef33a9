-- replay.lua TRACE: the trace replayed on engine sim on every rank, with
-- intervals; each rank writes its records' lags (submitted less recorded
-- time) to lag.RANK and its result to rep.RANK.json
local iomoon = require "iomoon"
local json = require "iomoon.json"
local rank = iomoon.cluster.rank
local r = iomoon.run { name = "replay", engine = "sim", sim_latency = "100us",
  replay = iomoon.trace.load(arg[1]), interval = "0.1s", trace = 100000 }
local f = assert(io.open(string.format("lag.%d", rank), "w"))
for i, s in ipairs(r.trace.submit_ns) do f:write(s - r.trace.start_ns[i], "\n") end
f:close()
r.trace = nil
f = assert(io.open(string.format("rep.%d.json", rank), "w"))
f:write(json.encode(r))
f:close()
