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

local knee, why
for _, qd in ipairs(suite.qd_cycle(1, 128)) do
  local r = iomoon.run { name = "4k randread QD " .. qd, target = t, bs = "4k", random = 100, qd = qd, duration = time }
  -- a phase that measured no I/O has no latency (its p99 reads 0): never under the bound
  if r.ios == 0 or r.errors > 0 then
    why = string.format("QD %d %s", qd, r.ios == 0 and "measured no I/O (try a longer TIME)" or "had errors")
    break
  end
  local ok = r.lat.p99_ns <= bound_ms * 1e6
  if ok and (not knee or r.iops > knee.iops) then knee = r end
  if not ok then why = why or string.format("QD %d has p99 %.3f ms, over %g ms", qd, r.lat.p99_ns / 1e6, bound_ms); break end
end
if knee then
  print(string.format("knee: QD %d, %.0f IOPS with p99 %.3f ms (bound %g ms)%s", knee.qd, knee.iops,
    knee.lat.p99_ns / 1e6, bound_ms, why and "; the sweep ended: " .. why or ""))
else
  print(string.format("no knee: %s", why))
end
