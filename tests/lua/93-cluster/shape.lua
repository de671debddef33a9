-- shape.lua: phases of different durations on the two ranks
local iomoon = require "iomoon"
iomoon.run { engine = "sim", bs = "4k", duration = iomoon.cluster.rank == 0 and "0.2s" or "0.3s" }
