-- stopif.lua: stop_if crossed on rank 1 only (its sim device is 5 ms, the
-- limit 2 ms); every rank writes what its result says of the stop to
-- stopif.RANK. The merged result must say it on every rank, not only on
-- the rank that crossed it.
local iomoon = require "iomoon"
local rank = iomoon.cluster.rank
local r = iomoon.run { name = "stopif", engine = "sim", sim_latency = rank == 1 and "5ms" or "20us", bs = "4k",
  qd = 1, duration = "5s", interval = "0.1s", stop_if = { latency = "2ms" } }
local f = assert(io.open("stopif." .. rank, "w"))
local s = r.stopped or {}
f:write(tostring(s.by), " ", tostring(s.limit), " ", tostring(s.value), " ", tostring(r.cluster.stopped_by), " ",
  r.seconds < 2 and "early" or "late", "\n")
f:close()
