-- rate1.lua: a rate on rank 0 only
local iomoon = require "iomoon"
iomoon.run { name = "p", engine = "sim", bs = "4k", qd = 2, rate = iomoon.cluster.rank == 0 and 1000 or nil, duration = "0.2s" }
