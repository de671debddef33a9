-- csv.lua PATH: a phase syncing after every write ("wal"), then one without
-- syncs ("plain"), on one file
local iomoon = require "iomoon"
iomoon.run{ name = "wal", target = { path = arg[1], size = "4m" }, bs = "8k", read = 0, random = 0, ios = 50, fdatasync = 1 }
iomoon.run{ name = "plain", target = arg[1], bs = "8k", ios = 50 }
