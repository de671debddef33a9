-- stop.lua URL: a 30 s phase with on_error = "stop": rank 1 on the export at
-- URL, whose every I/O fails, the others on sim; each rank writes what its
-- result says of the stop to stop.RANK
local iomoon = require "iomoon"
local json = require "iomoon.json"
local rank = iomoon.cluster.rank
local p = { name = "stop", bs = "4k", qd = 1, duration = "30s", on_error = "stop" }
if rank == 1 then p.target = arg[1] else p.engine = "sim" end
local r = iomoon.run(p)
local f = assert(io.open("stop." .. rank, "w"))
f:write(json.encode({ stopped_by = r.cluster.stopped_by, errors = r.errors, seconds = r.seconds,
  first = r.first_error and r.first_error.rank, msg = r.first_error and r.first_error.message,
  h1 = r.hosts[2].errors, h0 = r.hosts[1].ios }))
f:close()
