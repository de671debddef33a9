-- many.lua N: N phases of one I/O on null
local iomoon = require "iomoon"
for i = 1, tonumber(arg[1]) do iomoon.run { target = "m.dat", engine = "null", bs = "4k", ios = 1 } end
