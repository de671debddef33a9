-- fm.lua: plan.find_max on every rank; each writes its answer and probes
-- to fm.RANK. What the ranks must agree on is a search, not a first
-- refusal: the bound is far above the sim device's own latency (0.1 ms),
-- and a rate is bad only after three refused probes in a row (a probe is
-- refused when it falls 1 % short of its rate, which a rank starved for a
-- few milliseconds near the end of a probe does beside other tests).
local iomoon = require "iomoon"
local plan = require "iomoon.plan"
local rank = iomoon.cluster.rank
local out = plan.find_max { phase = { engine = "sim", sim_latency = "100us", bs = "4k", qd = 2, duration = "0.2s" },
  bound = "100ms", from = 1000, max = 64000, tolerance = 0.25, confirm = 3 }
local f = assert(io.open("fm." .. rank, "w"))
f:write(tostring(out.asked_iops), " ", tostring(out.iops), " ", #out.probes)
for _, p in ipairs(out.probes) do f:write(" ", p.iops, p.ok and "+" or "-") end
f:close()
