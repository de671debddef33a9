-- Pacing, measured: rate, poisson arrivals, IOMeter bursts, think time,
-- schedules, the coordinated-omission correction, and ramp.
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]

local t = iomoon.target { path = dir .. "/pace.dat", size = "64m" }

local function sorted_starts(r)
  local s = {}
  for i, v in ipairs(r.trace.start_ns) do s[i] = v end
  table.sort(s)
  return s
end

-- fixed rate
local r = iomoon.run { target = t, bs = "4k", random = 100, qd = 16, rate = { iops = 2000 }, duration = "3s" }
tap.near(r.ios, 6000, 180, "rate 2000 IOPS for 3 s: 6000 I/Os within 3 %%")
tap.ok(r.svc and r.svc.p50_ns > 0, "a paced phase reports the service time beside the latency")

-- poisson arrivals: exponential gaps, coefficient of variation near 1
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 16, rate = { iops = 2000, arrival = "poisson" },
  duration = "3s", trace = 100000 }
tap.near(r.ios, 6000, 300, "poisson 2000 IOPS for 3 s: 6000 I/Os within 5 %%")
do
  local s, sum, sumsq, n = sorted_starts(r), 0, 0, 0
  for i = 2, #s do
    local g = s[i] - s[i - 1]
    sum, sumsq, n = sum + g, sumsq + g * g, n + 1
  end
  local mean = sum / n
  local cv = math.sqrt(sumsq / n - mean * mean) / mean
  tap.near(cv, 1.0, 0.1, "poisson inter-arrival coefficient of variation")
  tap.near(mean, 500000, 25000, "poisson mean gap 0.5 ms")
end
do -- fixed arrivals: gaps equal
  local rf = iomoon.run { target = t, bs = "4k", random = 100, qd = 16, rate = 1000, duration = "1s", trace = 100000 }
  local s, worst = sorted_starts(rf), 0
  for i = 2, #s do worst = math.max(worst, math.abs(s[i] - s[i - 1] - 1000000)) end
  tap.ok(worst <= 1000, "fixed 1000 IOPS: every gap 1 ms to within 1 us (worst off by %d ns)", worst)
end

-- IOMeter burst: groups of N I/Os, then an idle gap of at least the delay
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 4, think = { burst = 10, delay = "20ms" },
  duration = "1s", trace = 100000 }
do
  local s = sorted_starts(r)
  local groups, size, short_gap, bad_sizes = {}, 1, math.huge, 0
  for i = 2, #s do
    local g = s[i] - s[i - 1]
    if g >= 20e6 then
      groups[#groups + 1] = size
      size = 1
      short_gap = math.min(short_gap, g)
    else
      size = size + 1
    end
  end
  for _, n in ipairs(groups) do if n ~= 10 then bad_sizes = bad_sizes + 1 end end
  tap.ok(#groups >= 30 and bad_sizes == 0, "burst=10: %d groups, every one of 10 I/Os (%d not)", #groups, bad_sizes)
  tap.ok(short_gap >= 20e6, "bursts separated by at least the 20 ms delay (shortest %.2f ms)", short_gap / 1e6)
end

-- fixed think time: a slot waits 10 ms after each completion
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 1, think = "10ms", duration = "1s", trace = 1000 }
do
  local s, shortest = sorted_starts(r), math.huge
  for i = 2, #s do shortest = math.min(shortest, s[i] - s[i - 1]) end
  tap.ok(shortest >= 10e6, "think 10 ms at qd 1: starts at least 10 ms apart (shortest %.2f ms)", shortest / 1e6)
  tap.ok(r.ios >= 80 and r.ios <= 100, "think 10 ms for 1 s: %d I/Os (80 to 100)", r.ios)
end
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 1, think = { exponential = "2ms" }, duration = "1s" }
tap.ok(r.ios > 300 and r.ios < 520, "exponential think, mean 2 ms, for 1 s: %d I/Os (about 480)", r.ios)

-- schedule: 1 s at 500 IOPS, then 1 s at 2000; the phase lasts the schedule
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 8,
  schedule = { { duration = "1s", iops = 500 }, { duration = "1s", iops = 2000 } } }
tap.near(r.seconds, 2, 0.01, "a schedule sets the phase's duration")
tap.near(r.intervals[1].iops, 500, 50, "schedule segment 1 runs at 500 IOPS")
tap.near(r.intervals[2].iops, 2000, 200, "schedule segment 2 runs at 2000 IOPS")

-- coordinated omission: asked for more than the device gives, latency
-- measured from the intended start grows; the service time does not
r = iomoon.run { target = t, engine = "psync", bs = "4k", random = 100, qd = 1, rate = 1000000, duration = "0.5s" }
tap.ok(r.lat.p50_ns > 20 * r.svc.p50_ns,
  "overload: p50 from intended start %.3f ms >> service time %.3f ms", r.lat.p50_ns / 1e6, r.svc.p50_ns / 1e6)
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 8, rate = 200, duration = "1s" }
tap.ok(r.lat.p50_ns <= r.svc.p50_ns * 1.1 + 10000,
  "light load: latency %.3f ms close to service time %.3f ms", r.lat.p50_ns / 1e6, r.svc.p50_ns / 1e6)

-- ramp: run, not counted
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 4, ramp = "0.5s", duration = "1s", rate = 1000, trace = 10000 }
tap.near(r.seconds, 1.0, 0.005, "ramp 0.5 s + duration 1 s: 1 s measured")
tap.near(r.ios, 1000, 30, "ramp I/Os are not counted")
do
  local early = 0
  for _, s in ipairs(r.trace.start_ns) do if s < -1e6 then early = early + 1 end end
  tap.ok(early == 0, "no counted I/O started in the ramp (%d did)", early)
end
print("1.." .. tap.n)
