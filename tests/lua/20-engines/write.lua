-- write.lua PATH SIZE ENGINE QD: the offset pattern written over the whole
-- file, sequentially; prints the most I/Os seen in flight
local iomoon = require "iomoon"
local path, size, engine, qd = arg[1], tonumber(arg[2]), arg[3], tonumber(arg[4])
local t = iomoon.target{path = path, size = size, fill = false}
local r = iomoon.run{target = t, engine = engine, qd = qd, bs = "64k", read = 0, random = 0,
  pattern = "offset", bytes = t:size()}
assert(r.engine == engine and r.bytes == size and r.errors == 0, "write pass")
print(r.qd_max)
