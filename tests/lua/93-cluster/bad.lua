-- bad.lua: bad input on rank 1 only (qd = 0), with a target to be made
local iomoon = require "iomoon"
iomoon.run { engine = "psync", target = { path = "made.{rank}", size = "1m" }, bs = "4k",
  qd = iomoon.cluster.rank == 1 and 0 or 1, duration = "0.2s" }
