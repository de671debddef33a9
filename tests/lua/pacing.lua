-- Pacing, measured: rate, poisson arrivals, IOMeter bursts, think time,
-- schedules, the coordinated-omission correction, and ramp.
--
-- What iomoon did is read from the trace's submit_ns (when each I/O was
-- actually issued), not from start_ns, which for a paced phase is the
-- intended start: checking that would only re-check the schedule's
-- arithmetic. A stall of this shared VM makes every I/O due meanwhile late
-- together, so timing is judged by medians and by the I/Os issued on time,
-- never by every gap; what cannot be noise is checked exactly (no I/O
-- before its time).
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]

local t = iomoon.target { path = dir .. "/pace.dat", size = "64m" }

local function sorted(col)
  local s = {}
  for i, v in ipairs(col) do s[i] = v end
  table.sort(s)
  return s
end

-- the nearest-rank q-quantile of a sorted list
local function quantile(s, q)
  return s[math.max(1, math.ceil(#s * q))]
end

local function gaps(s)
  local g = {}
  for i = 2, #s do g[#g + 1] = s[i] - s[i - 1] end
  return g
end

-- A paced trace in intended order: intended starts, actual submissions,
-- sorted lateness (submit - intended), the earliest lateness, and how
-- many I/Os were issued out of intended order.
local function paced(r)
  local tr, idx = r.trace, {}
  for i = 1, #tr.start_ns do idx[i] = i end
  table.sort(idx, function(a, b) return tr.start_ns[a] < tr.start_ns[b] end)
  local st, su, late, disorder = {}, {}, {}, 0
  for k, i in ipairs(idx) do
    st[k], su[k] = tr.start_ns[i], tr.submit_ns[i]
    late[k] = su[k] - st[k]
    if k > 1 and su[k] < su[k - 1] then disorder = disorder + 1 end
  end
  local early = math.huge
  for _, l in ipairs(late) do early = math.min(early, l) end
  return st, su, sorted(late), early, disorder
end

local function cv(g)
  local sum, sumsq = 0, 0
  for _, x in ipairs(g) do sum, sumsq = sum + x, sumsq + x * x end
  local mean = sum / #g
  return math.sqrt(sumsq / #g - mean * mean) / mean, mean
end

-- On the sim engine (a fixed 200 us service time, qd 16: 80,000 IOPS of
-- capacity) a slot is always free, so lateness is iomoon's alone.
local SIM = { target = t, engine = "sim", sim_latency = "200us", bs = "4k", random = 100, qd = 16 }
local function sim(extra)
  local p = {}
  for k, v in pairs(SIM) do p[k] = v end
  for k, v in pairs(extra) do p[k] = v end
  return iomoon.run(p)
end
local ON_TIME = 100000 -- ns: issued within 0.1 ms of its intended start

-- fixed rate, on the disk: the count, and no I/O issued before its time
local r = iomoon.run { target = t, bs = "4k", random = 100, qd = 16, rate = { iops = 2000 }, duration = "3s",
  trace = 100000 }
tap.near(r.ios, 6000, 180, "rate 2000 IOPS for 3 s: 6000 I/Os within 3 %%")
tap.ok(r.svc and r.svc.p50_ns > 0, "a paced phase reports the service time beside the latency")
do
  local _, _, _, early, disorder = paced(r)
  tap.ok(early >= 0 and disorder == 0,
    "on the disk: no I/O issued before its intended start (earliest %d ns after), in intended order (%d not)",
    early, disorder)
end

-- poisson arrivals: exponential gaps between the actual submissions
r = sim { rate = { iops = 2000, arrival = "poisson" }, duration = "3s", trace = 100000 }
tap.near(r.ios, 6000, 300, "poisson 2000 IOPS for 3 s: 6000 I/Os within 5 %%")
do
  local st, su, late, early, disorder = paced(r)
  local mean_i
  tap.ok(early >= 0 and disorder == 0,
    "poisson: no I/O issued before its intended start (earliest %d ns after), in intended order (%d not)",
    early, disorder)
  tap.timed_ok(quantile(late, 0.5) <= ON_TIME, "poisson: median lateness %.1f us (at most 100 us; p90 %.1f us)",
    quantile(late, 0.5) / 1e3, quantile(late, 0.9) / 1e3)
  -- gaps between consecutive submissions that were both on time
  local g = {}
  for i = 2, #su do
    if su[i] - st[i] <= ON_TIME and su[i - 1] - st[i - 1] <= ON_TIME then g[#g + 1] = su[i] - su[i - 1] end
  end
  tap.timed_ok(#g >= 1000, "poisson: %d of %d gaps between I/Os issued on time (at least 1000)", #g, #su - 1)
  tap.timed_near(cv(g), 1.0, 0.15, "poisson: coefficient of variation of the actual gaps")
  _, mean_i = cv(gaps(st))
  tap.near(mean_i, 500000, 25000, "poisson: the intended mean gap is 0.5 ms")
end

-- fixed arrivals: the schedule is exact, and the I/Os went out on it
do
  local rf = sim { rate = 1000, duration = "1s", trace = 100000 }
  local st, su, late, early, disorder = paced(rf)
  local worst = 0
  for _, g in ipairs(gaps(st)) do worst = math.max(worst, math.abs(g - 1000000)) end
  tap.ok(worst <= 1000, "fixed 1000 IOPS: every intended gap 1 ms to within 1 us (worst off by %d ns)", worst)
  tap.ok(early >= 0 and disorder == 0,
    "fixed: no I/O issued before its intended start (earliest %d ns after), in intended order (%d not)",
    early, disorder)
  tap.timed_ok(quantile(late, 0.5) <= ON_TIME, "fixed: median lateness %.1f us (at most 100 us; p90 %.1f us)",
    quantile(late, 0.5) / 1e3, quantile(late, 0.9) / 1e3)
  local g = sorted(gaps(su))
  tap.timed_near(quantile(g, 0.5), 1000000, 20000, "fixed: the median gap between actual submissions is 1 ms")
end

-- IOMeter burst: groups of 10 I/Os, then an idle gap of at least the
-- delay. Every 10th submission must be followed by such a gap; a stall of
-- the VM may add a gap inside a group (a few are allowed), but never take
-- one away, and never let an 11th I/O into a group.
r = sim { qd = 4, think = { burst = 10, delay = "20ms" }, duration = "1s", trace = 100000 }
do
  local s = sorted(r.trace.submit_ns)
  local missing, extra, short_gap = 0, 0, math.huge
  for i = 1, #s - 1 do
    local g = s[i + 1] - s[i]
    if i % 10 == 0 then
      if g < 20e6 then missing = missing + 1 end
      short_gap = math.min(short_gap, g)
    elseif g >= 20e6 then
      extra = extra + 1
    end
  end
  tap.ok(#s >= 300 and missing == 0, "burst=10: every 10th of %d submissions is followed by the delay (%d not)",
    #s, missing)
  tap.timed_ok(extra <= #s // 100, "burst=10: %d idle gaps inside a group (at most %d, from the VM's stalls)", extra,
    #s // 100)
  tap.ok(short_gap >= 20e6, "bursts separated by at least the 20 ms delay (shortest %.2f ms)", short_gap / 1e6)
end

-- think time at qd 1: from each completion (submit_ns + lat_ns, not
-- paced) to the next submission
local function think_waits(tr)
  local idx, w = {}, {}
  for i = 1, #tr.submit_ns do idx[i] = i end
  table.sort(idx, function(a, b) return tr.submit_ns[a] < tr.submit_ns[b] end)
  for k = 2, #idx do
    local prev, cur = idx[k - 1], idx[k]
    w[#w + 1] = tr.submit_ns[cur] - (tr.submit_ns[prev] + tr.lat_ns[prev])
  end
  return sorted(w)
end
r = sim { qd = 1, think = "10ms", duration = "1s", trace = 1000 }
do
  local w, differ = think_waits(r.trace), 0
  for i, v in ipairs(r.trace.start_ns) do if v ~= r.trace.submit_ns[i] then differ = differ + 1 end end
  tap.ok(#w > 0 and differ == 0, "not paced: start_ns is submit_ns (%d of %d differ)", differ, #w + 1)
  tap.ok(w[1] >= 10e6, "think 10 ms at qd 1: every submission at least 10 ms after the last completion (shortest %.3f ms)",
    w[1] / 1e6)
  -- the wait is the think time plus this VM's wake-up lag (about 0.1 ms when quiet, more when busy)
  tap.timed_ok(quantile(w, 0.5) <= 10.5e6, "think 10 ms: median wait %.3f ms (at most 10.5 ms)", quantile(w, 0.5) / 1e6)
  tap.timed_ok(r.ios >= 70 and r.ios <= 100, "think 10 ms for 1 s: %d I/Os (70 to 100)", r.ios)
end
r = sim { qd = 1, think = { exponential = "2ms" }, duration = "1s", trace = 1000 }
do
  local w = think_waits(r.trace)
  -- exponential with mean 2 ms: median 2 ms * ln 2 = 1.386 ms
  tap.timed_near(quantile(w, 0.5), 1.386e6, 0.3e6, "exponential think, mean 2 ms: the median wait")
  tap.timed_ok(r.ios > 300 and r.ios < 520, "exponential think, mean 2 ms, for 1 s: %d I/Os (about 470)", r.ios)
end

-- schedule: 1 s at 500 IOPS, then 1 s at 2000; the phase lasts the schedule
r = sim { qd = 8, schedule = { { duration = "1s", iops = 500 }, { duration = "1s", iops = 2000 } } }
tap.near(r.seconds, 2, 0.01, "a schedule sets the phase's duration")
tap.timed_near(r.intervals[1].iops, 500, 50, "schedule segment 1 runs at 500 IOPS")
tap.timed_near(r.intervals[2].iops, 2000, 200, "schedule segment 2 runs at 2000 IOPS")

-- coordinated omission: asked for more than the device gives, latency
-- measured from the intended start grows; the service time does not
r = iomoon.run { target = t, engine = "psync", bs = "4k", random = 100, qd = 1, rate = 1000000, duration = "0.5s",
  trace = 1000000 }
tap.ok(r.lat.p50_ns > 20 * r.svc.p50_ns,
  "overload: p50 from intended start %.3f ms >> service time %.3f ms", r.lat.p50_ns / 1e6, r.svc.p50_ns / 1e6)
do
  -- the trace says when the I/Os went out: late, and each one's
  -- completion minus its submission is the service time measured
  local tr, svc = r.trace, {}
  local _, _, late, early = paced(r)
  for i = 1, #tr.start_ns do svc[i] = tr.start_ns[i] + tr.lat_ns[i] - tr.submit_ns[i] end
  svc = sorted(svc)
  tap.ok(#late == r.ios and early >= 0 and quantile(late, 0.5) > 20 * r.svc.p50_ns,
    "overload: issued late, median %.3f ms after the intended start (%d I/Os traced)", quantile(late, 0.5) / 1e6, #late)
  tap.near(quantile(svc, 0.5), r.svc.p50_ns, r.svc.p50_ns * 0.01 + 1,
    "overload: from submit_ns to completion is the service time (median against svc.p50_ns)")
end
r = sim { qd = 8, rate = 200, duration = "1s" }
tap.timed_ok(r.lat.p50_ns <= r.svc.p50_ns + ON_TIME,
  "light load: latency p50 %.3f ms within 0.1 ms of the service time's %.3f ms", r.lat.p50_ns / 1e6,
  r.svc.p50_ns / 1e6)

-- ramp: run, not counted
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 4, ramp = "0.5s", duration = "1s", rate = 1000, trace = 10000 }
tap.near(r.seconds, 1.0, 0.005, "ramp 0.5 s + duration 1 s: 1 s measured")
tap.near(r.ios, 1000, 30, "ramp I/Os are not counted")
do
  -- an I/O counts when it completes in the measured time: those in
  -- flight when the ramp ended (at most qd) may have been submitted in
  -- it, no other. (Their intended start may be earlier still when the
  -- host stalled the pacer at the boundary: start_ns is not the test.)
  local early, before = 0, 0
  local tr = r.trace
  for i = 1, #tr.submit_ns do
    if tr.submit_ns[i] < 0 then early = early + 1 end
    if tr.start_ns[i] + tr.lat_ns[i] < 0 then before = before + 1 end
  end
  tap.ok(early <= 4 and before == 0,
    "counted: %d I/Os submitted in the ramp (at most qd 4, in flight at its end), %d completed in it (none)",
    early, before)
end
print("1.." .. tap.n)
