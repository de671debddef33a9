-- early.lua: rank 1 leaves its script after the first of two phases
local iomoon = require "iomoon"
iomoon.run { name = "one", engine = "sim", bs = "4k", duration = "0.2s" }
if iomoon.cluster.rank == 1 then return end
iomoon.run { name = "two", engine = "sim", bs = "4k", duration = "0.2s" }
