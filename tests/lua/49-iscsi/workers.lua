-- workers.lua LUN: 4 workers at qd 8 for 0.5 s; prints the workers, errors,
-- and whether over 100 I/Os were done
local iomoon = require "iomoon"
local r = iomoon.run{ target = arg[1], bs = '4k', read = 100, qd = 8, workers = 4, duration = 0.5 }
print(r.workers, r.errors, r.ios > 100)
