-- sizes.lua ENGINE QD BATCH IOS [TARGET]: one phase; prints batch, batch_used,
-- then count ios mean max hist of submit_sizes, the same of reap_sizes, and
-- the I/Os counted
local iomoon = require "iomoon"
local engine, qd, batch, ios, target = arg[1], tonumber(arg[2]), arg[3], tonumber(arg[4]), arg[5]
local phase = {target = target ~= "" and target or nil, engine = engine, qd = qd, bs = "4k", random = 100, ios = ios,
  sim_latency = engine == "sim" and "100us" or nil}
if batch ~= "none" then phase.batch = tonumber(batch) or batch end
local r = iomoon.run(phase)
local function sizes(s) return string.format("%d %d %g %d %s", s.count, s.ios, s.mean, s.max, table.concat(s.hist, ",")) end
print(tostring(r.batch) .. " " .. r.batch_used)
print(sizes(r.submit_sizes))
print(sizes(r.reap_sizes))
print(r.ios)
