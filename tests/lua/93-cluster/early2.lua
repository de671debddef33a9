-- early2.lua: rank 1 fails before the phase, with control bytes in its message
local iomoon = require "iomoon"
if iomoon.cluster.rank == 1 then error("no such table on this host: \027[31mx") end
iomoon.run { name = "a", engine = "sim", bs = "4k", duration = "0.1s" }
