-- mpi-cut.lua TRACE: the cut replay of cut.lua under mpirun; rank 0 prints
-- the records planned, due and cut over all ranks, and whether those not
-- cut were done or missed, some missed
local iomoon = require "iomoon"
local r = iomoon.run { name = "cut", engine = "sim", sim_latency = "1ms", qd = 1, duration = "0.125s",
  replay = iomoon.trace.load(arg[1]) }
local rp = r.replay
if iomoon.cluster.rank == 0 then
  print(rp.planned_ios, rp.due_ios, rp.cut_ios, rp.ios + rp.missed_ios == rp.due_ios and rp.missed_ios > 0)
end
