-- late.lua: rank 1 fails after the last phase
local iomoon = require "iomoon"
iomoon.run { name = "a", engine = "sim", bs = "4k", duration = "0.1s" }
if iomoon.cluster.rank == 1 then error("failed after the last phase") end
