-- results.lua: prints how many intervals' max is above the phase's, the
-- errors of three misspelt result fields, and how many of six poisson
-- runs a device keeps up with are "rate met"
local iomoon, report = require "iomoon", require "iomoon.report"
local r = iomoon.run { engine = "sim", sim_latency = "200us", qd = 2, bs = "4k", duration = 0.5, interval = 0.05 }
local over = 0
for _, iv in ipairs(r.intervals) do if iv.max_ns > r.lat.max_ns then over = over + 1 end end
print("over " .. over)
print(select(2, pcall(function() return r.lat.p99 end)))
print(select(2, pcall(function() return r.intervals[1].p99 end)))
print(select(2, pcall(function() return r.mix[1].blocksize end)))
local met = 0
for seed = 1, 6 do
  local x = iomoon.run { engine = "sim", sim_latency = "50us", qd = 8, bs = "4k", duration = 1, seed = seed,
                         rate = { iops = 1000, arrival = "poisson" } }
  if report.rate_met(x) then met = met + 1 end
end
print("met " .. met)
