-- cut.lua TRACE: the trace replayed on a device too slow for it (sim, 1 ms
-- an I/O, one at a time) cut by a duration ("cut"), then to its end ("whole")
local iomoon = require "iomoon"
local t = iomoon.trace.load(arg[1])
iomoon.run { name = "cut", engine = "sim", sim_latency = "1ms", qd = 1, duration = "0.125s", replay = t }
iomoon.run { name = "whole", engine = "sim", sim_latency = "10us", qd = 64, replay = t }
