-- Reproducing an application's traffic: the Exchange 2007 mix of VMware's
-- I/O Analyzer, driven open loop by a day's load curve (compressed into the
-- run's time), so latency is measured as mailbox users would feel it.
--
--   iomoon run examples/app-mix.lua TARGET [TIME]
local iomoon = require "iomoon"
local presets = require "iomoon.presets"
local think = require "iomoon.think"

local path, time = arg[1] or "iomoon-example.dat", arg[2] or "2m"
-- an existing file or device is used at its own size; a new file is made at 1 GiB
local t = iomoon.target { path = path, size = not io.open(path) and "1g" or nil }

local exchange = presets.get "Exchange 2007"              -- 8k, 55 % read, 80 % random
local day = think.diurnal { trough = 200, peak = 2000, period = time, steps = 12 }
local phase = think.apply({ name = "Exchange 2007, one day", target = t, qd = 32,
  interval = iomoon.duration(time) / 12 / 1e9 }, exchange, day)
-- a poisson arrival in every segment: users do not queue up politely
for _, seg in ipairs(phase.schedule) do seg.arrival = "poisson" end

local r = iomoon.run(phase)
print("hour  IOPS     p99 ms")
for i, iv in ipairs(r.intervals) do
  print(string.format("%4d  %7.0f  %7.3f", (i - 1) * 2, iv.iops, iv.p99_ns / 1e6))
end
print(string.format("whole day: p99 %.3f ms from the intended start, %.3f ms service time",
  r.lat.p99_ns / 1e6, r.svc.p99_ns / 1e6))
