-- durable.lua PATH: a database's I/O in one phase: a data stream, and a
-- WAL stream with an fdatasync after every write (its commit latency)
local iomoon = require "iomoon"
iomoon.run { name = "db", engine = "psync", target = { path = arg[1], size = "4m" }, duration = "0.3s",
  interval = "50ms", streams = {
    { name = "data", bs = "8k", read = 70, random = 100, qd = 1 },
    { name = "wal", bs = "8k", read = 0, random = 0, qd = 1, fdatasync = 1, region = { offset = "3m", size = "1m" } },
  } }
