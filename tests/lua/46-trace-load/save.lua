-- save.lua PATH IOLOG: 300 traced I/Os on PATH saved to IOLOG; prints the
-- records trace.save wrote
local iomoon = require "iomoon"
local r = iomoon.run { target = { path = arg[1], size = "16m" }, bs = "4k", read = 50, random = 100, ios = 300, trace = 300, direct = false }
print(iomoon.trace.save(r, arg[2]))
