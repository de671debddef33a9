-- replay.lua TRACE: TRACE written here (400 reads, one every 250 us: 0.1 s)
-- replayed to its end ("replay"), then cut by a duration on a device too
-- slow for it ("cut": sim, 1 ms an I/O, one at a time), then without its
-- times ("no stall": every lag 0)
local iomoon = require "iomoon"
local f = assert(io.open(arg[1], "w"))
f:write("fio version 3 iolog\n0 d add\n0 d open\n")
for i = 0, 399 do f:write(string.format("%d d read %d 4096\n", i * 250, (i % 100) * 4096)) end
f:close()
local t = iomoon.trace.load(arg[1])
iomoon.run { name = "replay", engine = "sim", sim_latency = "20us", qd = 4, interval = "20ms", replay = t }
iomoon.run { name = "cut", engine = "sim", sim_latency = "1ms", qd = 1, duration = "50ms", interval = "10ms", replay = t }
iomoon.run { name = "no stall", engine = "sim", sim_latency = "20us", qd = 4, interval = "20ms",
  replay = { trace = t, no_stall = true } }
