-- one-host.lua: a phase without mpirun; prints the rank, ranks, whether on
-- a cluster, and whether the result lacks cluster and hosts
local iomoon = require "iomoon"
local c = iomoon.cluster
local r = iomoon.run { engine = "sim", bs = "4k", qd = 1, duration = "0.1s", target = nil }
print(c.rank, c.ranks, c.on, rawget(r, "cluster") == nil, rawget(r, "hosts") == nil)
