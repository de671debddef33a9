-- durable.lua PATH TRACE: a database's I/O in one phase: a data stream, and
-- a WAL stream with an fdatasync after every write (its commit latency);
-- then TRACE (written here: 300 reads one every 500 us, then 300 one every
-- 100 us) replayed on a device (300 us an I/O, one at a time) that falls
-- behind in the second half, so its lag grows
local iomoon = require "iomoon"
iomoon.run { name = "db", engine = "psync", target = { path = arg[1], size = "4m" }, duration = "0.3s",
  interval = "50ms", streams = {
    { name = "data", bs = "8k", read = 70, random = 100, qd = 1 },
    { name = "wal", bs = "8k", read = 0, random = 0, qd = 1, fdatasync = 1, region = { offset = "3m", size = "1m" } },
  } }
local f = assert(io.open(arg[2], "w"))
f:write("fio version 3 iolog\n0 d add\n0 d open\n")
for i = 0, 599 do
  local us = i < 300 and i * 500 or 150000 + (i - 300) * 100
  f:write(string.format("%d d read %d 4096\n", us, (i % 100) * 4096))
end
f:close()
iomoon.run { name = "replayed", engine = "sim", sim_latency = "300us", qd = 1, interval = "50ms",
  replay = iomoon.trace.load(arg[2]) }
