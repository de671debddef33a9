-- sim.lua DURATION: a phase of DURATION on sim.dat with a 7 s service time;
-- prints the I/Os completed and whether it was interrupted
local iomoon = require "iomoon"
local d = arg[1]
local r = iomoon.run{ name = "sim", target = { path = "sim.dat", size = "1m" }, engine = "sim", sim_latency = "7s",
  qd = 4, workers = 2, bs = "4k", duration = d }
print(string.format("ios %d interrupted %s", r.ios, r.interrupted))
