-- kept.lua N: N phases of one I/O on null, their results kept
local iomoon = require "iomoon"
iomoon.keep_results(true)
for i = 1, tonumber(arg[1]) do iomoon.run { target = "m.dat", engine = "null", bs = "4k", ios = 1 } end
