-- durable.lua PATH: a WAL with an fdatasync after every write (200 writes,
-- so 200 syncs), a phase that trims, and one without either
local iomoon = require "iomoon"
local t = { path = arg[1], size = "4m" }
iomoon.run { name = "wal", engine = "psync", target = t, bs = "8k", read = 0, random = 0, qd = 1, ios = 200,
  fdatasync = 1 }
iomoon.run { name = "trim", engine = "psync", target = t, bs = "8k", read = 50, trim = 25, random = 100, ios = 400 }
iomoon.run { name = "plain", engine = "sim", bs = "4k", ios = 100 }
-- a log opened O_DSYNC (jetstress's): every write is its commit
iomoon.run { name = "log", engine = "psync", target = t, bs = "8k", read = 0, random = 0, qd = 1, ios = 50, sync = "dsync" }
