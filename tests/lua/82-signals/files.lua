-- a files tree of 5 files in arg[1]: op = "create" makes it; else a mix
-- of reads over it for 30 s on engine arg[3] (a stop signal ends it)
local iomoon = require "iomoon"
local p = { files = { dir = arg[1], dirs = 1, files = 5, size = "4k" }, engine = arg[3] or "psync" }
p.qd = p.engine == "io_uring" and 4 or 1
if arg[2] == "create" then p.op = "create" else p.ops = { read = 1 }; p.duration = "30s" end
iomoon.run(p)
