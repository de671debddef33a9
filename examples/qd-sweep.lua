-- A queue-depth sweep that reports the knee: the highest IOPS whose p99
-- latency stays under a bound. IOMeter cycles queue depths the same way;
-- deciding where the knee is needs a condition, which is Lua's job.
--
--   iomoon run examples/qd-sweep.lua TARGET [TIME] [BOUND_MS]
local iomoon = require "iomoon"
local suite = require "iomoon.suite"

local path, time, bound_ms = arg[1] or "iomoon-example.dat", arg[2] or "10s", tonumber(arg[3] or "2")
-- an existing file or device is used at its own size; a new file is made at 1 GiB
local t = iomoon.target { path = path, size = not io.open(path) and "1g" or nil }

local knee
for _, qd in ipairs(suite.qd_cycle(1, 128)) do
  local r = iomoon.run { name = "4k randread QD " .. qd, target = t, bs = "4k", random = 100, qd = qd, duration = time }
  local ok = r.lat.p99_ns <= bound_ms * 1e6
  if ok and (not knee or r.iops > knee.iops) then knee = r end
  if not ok then break end -- deeper queues only add latency from here
end
if knee then
  print(string.format("knee: QD %d, %.0f IOPS with p99 %.3f ms (bound %g ms)", knee.qd, knee.iops,
    knee.lat.p99_ns / 1e6, bound_ms))
else
  print(string.format("even QD 1 has p99 over %g ms", bound_ms))
end
