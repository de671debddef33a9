-- fm.lua: plan.find_max on every rank; each writes its answer and probes
-- to fm.RANK. The bound is far above the sim device's own latency (0.1 ms):
-- 2000 IOPS must pass even when the machine starves the ranks for a while,
-- so that the search (and not a first refusal) is what the ranks agree on.
local iomoon = require "iomoon"
local plan = require "iomoon.plan"
local rank = iomoon.cluster.rank
local out = plan.find_max { phase = { engine = "sim", sim_latency = "100us", bs = "4k", qd = 2, duration = "0.2s" },
  bound = "100ms", from = 2000, max = 64000, tolerance = 0.25 }
local f = assert(io.open("fm." .. rank, "w"))
f:write(tostring(out.asked_iops), " ", tostring(out.iops), " ", #out.probes)
for _, p in ipairs(out.probes) do f:write(" ", p.iops, p.ok and "+" or "-") end
f:close()
