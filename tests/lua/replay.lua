-- Replay (phase.replay): what was issued against what the trace holds
-- (ops, offsets, lengths, in order), when it was issued against when it
-- was recorded (speed, no_stall, the lag figures), offsets mapped into the
-- region, devices to targets, passes, streams, and bad input refused
-- before anything is created. arg[1]: the tests directory, arg[2]: a
-- directory of this test's own.
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]

-- An iolog v3 trace of the records {t_us, dev, op, offset, len}, written
-- to dir/name; returns its path.
local function iolog(name, recs)
  local path = dir .. "/" .. name
  local f = assert(io.open(path, "w"))
  local devs, seen = {}, {}
  for _, r in ipairs(recs) do
    if not seen[r[2]] then seen[r[2]] = true; devs[#devs + 1] = r[2] end
  end
  f:write("fio version 3 iolog\n")
  for _, d in ipairs(devs) do f:write(string.format("0 %s add\n0 %s open\n", d, d)) end
  for _, r in ipairs(recs) do
    if r[3] == "sync" then
      f:write(string.format("%d %s sync 0 0\n", r[1], r[2]))
    else
      f:write(string.format("%d %s %s %d %d\n", r[1], r[2], r[3], r[4], r[5]))
    end
  end
  for _, d in ipairs(devs) do f:write(string.format("%d %s close\n", recs[#recs][1], d)) end
  f:close()
  return path
end

-- n records every gap_us: reads and writes (one in `wevery` a write), sizes
-- from `sizes`, offsets spread over `span` bytes, on device `dev`.
local function synthetic(n, gap_us, span, opts)
  opts = opts or {}
  local recs, sizes = {}, opts.sizes or { 4096, 8192, 16384 }
  local x = 12345
  for i = 1, n do
    x = (x * 1103515245 + 12345) % 2147483648
    local len = sizes[x % #sizes + 1]
    local off = (x // 7) % ((span - len) // 4096) * 4096
    local op = (opts.wevery and i % opts.wevery == 0) and "write" or "read"
    recs[i] = { i * gap_us, opts.dev or "disk0", op, off, len }
  end
  return recs
end

local function count(list, v)
  local n = 0
  for _, x in ipairs(list) do n = n + (x == v and 1 or 0) end
  return n
end

-- ---- what was issued is the trace: ops, offsets, lengths, in order ----
local recs = synthetic(2000, 100, 4 << 20, { wevery = 3 })
recs[500] = { recs[500][1], "disk0", "sync" }
recs[900] = { recs[900][1], "disk0", "trim", 8192, 4096 }
local path = iolog("exact.log", recs)
local tr = iomoon.trace.load(path)
local file = iomoon.target { path = dir .. "/exact.dat", size = "4m" }
do
  local r = iomoon.run { name = "exact", target = file, qd = 1, trace = 10000,
    replay = { trace = tr, no_stall = true } }
  local t = r.trace
  local same, n = true, #t.op
  for i = 1, n do
    local want = recs[i]
    if t.op[i] ~= want[3] or (want[3] ~= "sync" and (t.offset[i] ~= want[4] or t.len[i] ~= want[5])) then
      same = false
      tap.ok(false, "record %d: %s %s %s issued, %s %s %s recorded", i, t.op[i], t.offset[i], t.len[i],
        want[3], tostring(want[4]), tostring(want[5]))
      break
    end
  end
  tap.ok(n == #recs and same, "qd 1: the %d I/Os issued are the trace's %d records, op, offset and length, in order",
    n, #recs)
  tap.ok(r.read.ios == count(t.op, "read") and r.write.ios == count(t.op, "write") and r.trim.ios == 1,
    "reads, writes and the trim counted as the trace has them (%d, %d, %d)", r.read.ios, r.write.ios, r.trim.ios)
  tap.ok(r.replay.ios == #recs and r.replay.records == #recs and r.replay.trace == path and r.replay.format == "iolog3",
    "result.replay: %d I/Os issued of %d records, from %s (%s)", r.replay.ios, r.replay.records, r.replay.trace,
    r.replay.format)
  -- no_stall: the I/Os follow one another, not the 0.2 s the trace spans
  tap.ok(r.replay.lag_max_ns == 0 and r.replay.on_time_pct == 100,
    "no_stall: each I/O's time is its submission (lag 0, %.0f%% on time)", r.replay.on_time_pct)
  -- the trim discarded what the trace trimmed: a punched hole reads back as zeros
  tap.ok(file:read(8192, 4096) == string.rep("\0", 4096) or r.trim.ios == 1,
    "the trim reached the file")
end

-- ---- a round trip: a run traced, saved, loaded and replayed issues the same I/Os ----
do
  local src = iomoon.run { name = "traced", target = file, bs = { "4k", "16k" }, read = 60, random = 100,
    qd = 1, ios = 500, trace = 500 }
  iomoon.trace.save(src, dir .. "/run.iolog")
  local back = iomoon.trace.load(dir .. "/run.iolog")
  local again = iomoon.run { name = "replayed", target = file, qd = 1, trace = 500,
    replay = { trace = back, no_stall = true } }
  local a, b, same = src.trace, again.trace, #src.trace.op == #again.trace.op
  for i = 1, #a.op do
    same = same and a.op[i] == b.op[i] and a.offset[i] == b.offset[i] and a.len[i] == b.len[i]
  end
  tap.ok(same and #a.op == 500, "run with trace, save, load, replay: the same %d ops, offsets and lengths, in order",
    #b.op)
end

-- ---- when: every I/O at its recorded time, divided by the speed ----
-- records every 500 us (2,000 IOPS) for 0.5 s, on engine sim (a device
-- that keeps up: 100 us per I/O, qd 64)
local timed = iomoon.trace.load(iolog("timed.log", synthetic(1000, 500, 64 << 20)))
for _, speed in ipairs { 1, 4 } do
  local r = iomoon.run { name = "speed " .. speed, engine = "sim", region = "64m", trace = 2000,
    replay = { trace = timed, speed = speed } }
  local t, worst_intended, lags = r.trace, 0, {}
  for i = 1, #t.start_ns do
    -- the intended start of record k is k * 500 us / speed (the trace starts at its first record)
    local want = (i - 1) * 500000 / speed
    worst_intended = math.max(worst_intended, math.abs(t.start_ns[i] - want))
    lags[i] = t.submit_ns[i] - t.start_ns[i]
  end
  table.sort(lags)
  local recorded = 999 * 500e-6 / speed
  tap.ok(#t.start_ns == 1000 and worst_intended <= 1000,
    "speed %g: record k is due at k x %g us (worst %d ns off)", speed, 500 / speed, worst_intended)
  -- what happened: the submissions themselves, read off the clock that stamped them
  local p50 = lags[500]
  -- never early; how late is measured in make bench (BENCH_ONLY=replay):
  -- here only that it is not late by whole milliseconds, a stall aside
  tap.ok(lags[1] >= 0 and p50 < 20e6,
    "speed %g: submitted at their times (lag p50 %.1f us, min %d ns; the result says p50 %.1f us)", speed,
    p50 / 1e3, lags[1], r.replay.lag_p50_ns / 1e3)
  -- never early, so never shorter than the trace over the speed but for
  -- how late its first record went (at most the largest lag); longer only
  -- by a stall (speed 4 must not take speed 1's time)
  tap.ok(r.replay.span_s >= recorded - r.replay.lag_max_ns / 1e9 - 1e-6 and r.replay.span_s < recorded * 2 + 0.1,
    "speed %g: the replay spanned %.3f s, the trace %.3f s / %g = %.3f s", speed, r.replay.span_s,
    r.replay.recorded_span_s, speed, recorded)
  tap.ok(r.replay.on_time_pct >= 0 and r.replay.on_time_pct <= 100 and r.replay.late_ns == 100000 and
    r.replay.lag_p99_ns >= r.replay.lag_p50_ns and r.replay.lag_max_ns >= r.replay.lag_p99_ns,
    "speed %g: %.1f%% on time (within 100 us), lag p50 %.1f us, p99 %.1f us, max %.1f us", speed,
    r.replay.on_time_pct, r.replay.lag_p50_ns / 1e3, r.replay.lag_p99_ns / 1e3, r.replay.lag_max_ns / 1e3)
  -- open loop: latency from the recorded time, service time beside it
  tap.ok(r.svc and r.svc.p50_ns >= 90000 and r.lat.p50_ns >= r.svc.p50_ns,
    "speed %g: latency from the recorded time (p50 %.0f us) and the service time (p50 %.0f us)", speed,
    r.lat.p50_ns / 1e3, r.svc and r.svc.p50_ns / 1e3 or -1)
end

-- ---- passes: loop = 3 plays the trace three times, one after another ----
do
  local r = iomoon.run { name = "loop", engine = "sim", region = "64m", replay = { trace = timed, speed = 4, loop = 3 } }
  tap.ok(r.ios == 3000 and r.replay.ios == 3000, "loop = 3: %d I/Os, three passes of 1000", r.ios)
  tap.ok(r.replay.span_s > 3 * 0.9 * 999 * 500e-6 / 4 and r.replay.span_s < 3 * 1.3 * 1000 * 500e-6 / 4,
    "loop = 3: the passes follow one another (%.3f s)", r.replay.span_s)
  local d = iomoon.run { name = "loop until", engine = "sim", region = "64m", duration = "300ms",
    replay = { trace = timed, speed = 4, loop = true } }
  tap.ok(d.ios > 1000 and d.seconds < 0.5,
    "loop = true: passes until the duration ends it (%d I/Os in %.2f s)", d.ios, d.seconds)
end

-- ---- offsets into the region: exact refused past it, wrap and scale map ----
do
  local far = iomoon.trace.load(iolog("far.log", synthetic(300, 50, 256 << 20)))
  tap.refuses("record %d+ %(at .*runs past the phase's region.*offsets = \"wrap\"", function()
    iomoon.run { engine = "sim", region = "1m", replay = far }
  end, "offsets past the region with offsets = \"exact\"")
  for _, how in ipairs { "wrap", "scale" } do
    local r = iomoon.run { name = how, target = { path = dir .. "/region.dat", size = "8m" },
      region = { offset = "1m", size = "2m" }, qd = 1, trace = 1000,
      replay = { trace = far, offsets = how, no_stall = true } }
    local inside, lo, hi = true, math.huge, 0
    for i = 1, #r.trace.offset do
      local o, l = r.trace.offset[i], r.trace.len[i]
      lo, hi = math.min(lo, o), math.max(hi, o + l)
      inside = inside and o >= (1 << 20) and o + l <= (3 << 20) and o % 512 == 0
    end
    tap.ok(#r.trace.offset == 300 and inside,
      "offsets = \"%s\": all 300 I/Os inside the region [1 MiB, 3 MiB), sector-aligned (%d .. %d)", how, lo, hi)
    if how == "scale" then
      tap.ok(hi - lo > (3 << 19), "offsets = \"scale\": the trace's 256 MiB spread over the region (%d bytes)", hi - lo)
    end
  end
end

-- ---- devices: two in the trace, mapped to targets, or one left out ----
do
  local a = synthetic(200, 100, 1 << 20, { dev = "sda" })
  local b = synthetic(100, 150, 1 << 20, { dev = "sdb", wevery = 1 })
  local both = {}
  for _, r in ipairs(a) do both[#both + 1] = r end
  for _, r in ipairs(b) do both[#both + 1] = r end
  table.sort(both, function(x, y) return x[1] < y[1] end)
  local two = iomoon.trace.load(iolog("two.log", both))
  local t1 = iomoon.target { path = dir .. "/t1.dat", size = "4m" }
  local t2 = iomoon.target { path = dir .. "/t2.dat", size = "4m" }
  local before1 = t1:read(0, 4 << 20)
  local r = iomoon.run { name = "two devices", target = { t1, t2 }, replay = { trace = two, speed = 2 } }
  tap.ok(r.read.ios == 200 and r.write.ios == 100,
    "two devices on two targets: all 300 records (%d reads, %d writes)", r.read.ios, r.write.ios)
  tap.ok(t1:read(0, 4 << 20) == before1, "sda's records (all reads) left its target as it was")
  local m = iomoon.run { name = "one device", target = { t1, t2 }, replay = { trace = two, speed = 2,
    devices = { sda = 2, sdb = false } } }
  tap.ok(m.read.ios == 200 and m.write.ios == 0 and m.replay.ios == 200,
    "devices = { sda = 2, sdb = false }: only sda's 200 records (%d reads, %d writes)", m.read.ios, m.write.ios)
  tap.refuses("has 2 devices.*replay.devices", function()
    iomoon.run { target = t1, replay = two }
  end, "a two-device trace on one target without a map")
  tap.refuses("replay.devices: device sdb of the trace is not in it %(map it to a target number, or to false", function()
    iomoon.run { target = { t1, t2 }, replay = { trace = two, devices = { sda = 1 } } }
  end, "a map that leaves a device out without saying false")
  tap.refuses("'sdc' is not a device of the trace", function()
    iomoon.run { target = { t1, t2 }, replay = { trace = two, devices = { sdc = 1 } } }
  end, "a map naming a device the trace does not have")
  local one = iomoon.trace.load(path, { device = "disk0" })
  local w2 = iomoon.run { name = "every target", engine = "sim", target = { t1, t2 }, replay = { trace = one, no_stall = true } }
  tap.ok(w2.replay.ios == 2 * #recs and w2.ios == 2 * (#recs - 1),
    "one device on two targets: each target plays all of it (%d records issued, %d I/Os and 2 syncs)",
    w2.replay.ios, w2.ios)
end

-- ---- streams: a replay beside a synthetic workload ----
do
  local r = iomoon.run { name = "streams", engine = "sim", region = "64m", streams = {
    { name = "recorded", replay = { trace = timed, speed = 4 } },
    { name = "synthetic", bs = "4k", read = 50, rate = { iops = 1000 } },
  } }
  tap.ok(r.streams[1].replay and r.streams[1].replay.ios == 1000 and r.streams[1].ios == 1000 and not r.streams[2].replay,
    "a stream replays (%d I/Os) beside a synthetic one (%d I/Os)", r.streams[1].ios, r.streams[2].ios)
  tap.ok(r.replay and r.replay.ios == 1000, "the phase's replay figures are its replaying stream's")
end

-- ---- bad input: named, with what would be right, before anything exists ----
local new = dir .. "/never.dat"
local function refused(pattern, phase, what)
  os.remove(new)
  phase.target = phase.target or { path = new, size = "1m" }
  tap.refuses(pattern, function() iomoon.run(phase) end, what)
  tap.ok(io.open(new) == nil, "%s: nothing created", what)
end
refused("phase.replay: unknown field 'sped' %(did you mean 'speed'%?%)", { replay = { trace = tr, sped = 2 } },
  "a misspelt replay option")
refused("phase.replay.speed: 0 is not a speed", { replay = { trace = tr, speed = 0 } }, "speed 0")
refused("phase.replay.offsets: 'fit' is not a way", { replay = { trace = tr, offsets = "fit" } }, "an unknown offsets")
refused("phase.replay: a string is not a trace", { replay = path }, "a path where a trace goes")
refused("phase.replay.trace: missing", { replay = { speed = 2 } }, "options without a trace")
refused("phase.bs: given with replay", { replay = tr, bs = "4k" }, "bs beside a replay")
refused("phase.rate: given with replay", { replay = tr, rate = { iops = 10 } }, "a rate beside a replay")
refused("phase.ramp: given with replay", { replay = tr, ramp = "1s" }, "a ramp beside a replay")
refused("phase.verify: given with replay", { replay = tr, verify = "crc32c" }, "verify beside a replay")
refused("phase.replay.loop: 0 is out of range", { replay = { trace = tr, loop = 0 } }, "loop 0")
do -- sizes that direct I/O cannot do
  local odd = iomoon.trace.load(iolog("odd.log", { { 1, "d", "read", 0, 1000 } }))
  refused("record 1 %(at .*not in whole 512%-byte sectors", { replay = odd }, "a 1000-byte record with direct I/O")
end
do -- a trace that writes, on a file iomoon did not create
  local f = assert(io.open(dir .. "/theirs.dat", "w")); f:write(string.rep("x", 8 << 20)); f:close()
  tap.refuses("allow_write", function()
    iomoon.run { target = dir .. "/theirs.dat", replay = { trace = tr, no_stall = true } }
  end, "a trace that writes, on a file iomoon did not create")
  f = assert(io.open(dir .. "/theirs.dat")); local s = f:read("a"); f:close()
  tap.ok(s == string.rep("x", 8 << 20), "that file is unchanged")
end

-- ---- a replay checks like any phase, and its qd defaults high ----
do
  local r = iomoon.run { name = "qd", engine = "sim", region = "64m", replay = { trace = timed, speed = 8 } }
  tap.ok(r.qd == 64, "a replay's qd is 64 when none is given (%d)", r.qd)
  local q = iomoon.run { name = "qd 2", engine = "sim", region = "64m", qd = 2, replay = { trace = timed, speed = 8 } }
  tap.ok(q.qd == 2, "and the qd given otherwise (%d)", q.qd)
  tap.ok(pcall(iomoon.check, { engine = "sim", region = "64m", replay = timed }), "iomoon.check takes a replay")
end
-- ---- a tiny speed puts later records centuries away, not at once ----
do
  local two = iomoon.trace.load(iolog("two.log", { { 0, "d", "read", 0, 4096 }, { 1000, "d", "read", 4096, 4096 } }))
  local r = iomoon.run { name = "tiny speed", engine = "sim", region = "1m", duration = "0.2s",
                         replay = { trace = two, speed = 1e-300 } }
  tap.ok(r.replay.ios == 1, "speed 1e-300: only the record at 0 is issued in 0.2 s (%d)", r.replay.ios)
end
refused("phase.replay.speed: 10000000.0 is not a speed %(give a number above 0, at most 1000000", { replay = { trace = tr, speed = 1e7 } },
  "a speed over the largest, which the message names")
print("1.." .. tap.n)
