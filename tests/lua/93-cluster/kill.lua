-- kill.lua: each rank writes its pid to pid.RANK and runs a minute (the
-- test kills one)
local iomoon = require "iomoon"
local f = assert(io.open("/proc/self/stat")); local pid = f:read("n"); f:close()
f = assert(io.open("pid." .. iomoon.cluster.rank, "w")); f:write(pid); f:close()
iomoon.run { name = "long", engine = "sim", bs = "4k", qd = 1, duration = "60s" }
