-- Phases: exact quotas, intervals, regions, seeds, distributions, mixes,
-- several targets, and bad phase tables refused before anything is created.
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]

local t = iomoon.target { path = dir .. "/phase.dat", size = "32m" }
iomoon.keep_results(true) -- for iomoon.results() below

local r = iomoon.run { target = t, bs = "4k", random = 100, workers = 3, qd = 7, ios = 12345 }
tap.ok(r.ios == 12345, "ios = 12345 over 3 workers x qd 7: exactly %d", r.ios)
r = iomoon.run { target = t, bs = "4k", random = 0, bytes = "4m", qd = 5 }
tap.ok(r.ios == 1024 and r.bytes == 4194304, "bytes = 4m at 4k: exactly %d I/Os, %d bytes", r.ios, r.bytes)
-- split across workers in whole blocks: 12k over 2 workers is 3 I/Os, not 2 + 2
for _, c in ipairs { { "12k", 2, 3 }, { "20k", 3, 5 }, { "4k", 2, 1 } } do
  r = iomoon.run { target = t, bs = "4k", random = 0, bytes = c[1], workers = c[2], qd = 1, duration = "10s" }
  tap.ok(r.ios == c[3] and r.bytes == c[3] * 4096, "bytes = %s over %d workers: %d I/Os (got %d, %d bytes)",
    c[1], c[2], c[3], r.ios, r.bytes)
end
r = iomoon.run { target = t, bs = "4k", random = 100, ios = 2, workers = 4 }
tap.ok(r.ios == 2, "ios = 2 with 4 workers: exactly %d (idle workers do nothing)", r.ios)

r = iomoon.run { target = t, bs = "4k", random = 100, qd = 4, duration = "1s", interval = "250ms" }
do
  local sum, okt = 0, true
  for i, iv in ipairs(r.intervals) do
    sum = sum + iv.ios
    okt = okt and math.abs(iv.t_s - 0.25 * i) < 0.02 and math.abs(iv.len_s - 0.25) < 0.02
    okt = okt and iv.p50_ns <= iv.p99_ns and iv.p99_ns <= iv.max_ns
  end
  tap.ok(#r.intervals == 4 and okt, "interval 250 ms over 1 s: 4 intervals at 0.25 s steps (%d)", #r.intervals)
  tap.ok(sum == r.ios, "intervals add up to the phase: %d of %d I/Os", sum, r.ios)
end
-- with a ramp: the workers count from measure_ns, before the sampler's
-- first wake-up; those I/Os belong to the first interval (5 runs: the gap
-- is a matter of scheduling, it showed in about half of them)
do
  local short = 0
  for i = 1, 5 do
    local rr = iomoon.run { target = t, bs = "4k", random = 100, qd = 4, ramp = "0.05s", duration = "0.3s", interval = "75ms" }
    local sum = 0
    for _, iv in ipairs(rr.intervals) do sum = sum + iv.ios end
    short = short + (rr.ios - sum)
  end
  tap.ok(short == 0, "with a ramp too, intervals add up to the phase (%d I/Os short over 5 runs)", short)
end

-- region
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 8, ios = 5000, region = { offset = "1m", size = "2m" }, trace = 5000 }
do
  local outside = 0
  for i, off in ipairs(r.trace.offset) do
    if off < 1048576 or off + r.trace.len[i] > 3145728 then outside = outside + 1 end
  end
  tap.ok(#r.trace.offset == 5000 and outside == 0, "region 1m+2m: all 5000 I/Os inside (%d outside)", outside)
end

-- seeds
local function offsets(seed)
  local x = iomoon.run { target = t, bs = "4k", random = 100, ios = 200, seed = seed, trace = 200 }
  table.sort(x.trace.offset)
  return table.concat(x.trace.offset, ",")
end
tap.ok(offsets(7) == offsets(7), "the same seed gives the same offsets")
tap.ok(offsets(7) ~= offsets(8), "another seed gives other offsets")

-- mixes: the shares asked for, measured from the trace
r = iomoon.run { target = t, qd = 8, ios = 20000, trace = 20000,
  mix = { { bs = "4k", read = 70, random = 100, weight = 75 }, { bs = { { "8k", 50 }, { "64k", 50 } }, read = 0, random = 0, weight = 25 } } }
do
  local n, reads, small, k8 = #r.trace.op, 0, 0, 0
  for i = 1, n do
    if r.trace.op[i] == "read" then reads = reads + 1 end
    if r.trace.len[i] == 4096 then small = small + 1 end
    if r.trace.len[i] == 8192 then k8 = k8 + 1 end
  end
  tap.near(reads / n, 0.75 * 0.7, 0.02, "mix: read share")
  tap.near(small / n, 0.75, 0.02, "mix: spec weights")
  tap.near(k8 / n, 0.125, 0.015, "mix: weighted block sizes within a spec")
  tap.ok(r.read.ios + r.write.ios == r.ios and r.read.ios == reads, "per-op counts agree with the trace")
end

-- a skewed distribution
r = iomoon.run { target = t, bs = "4k", random = 100, qd = 8, ios = 20000, dist = "zoned:90/10:10/90", trace = 20000 }
do
  local hot = 0
  for _, off in ipairs(r.trace.offset) do if off < 32 * 1048576 * 0.1 then hot = hot + 1 end end
  tap.near(hot / 20000, 0.9, 0.02, "zoned:90/10:10/90: share of I/Os in the first tenth")
end

-- several targets: one worker each by default
local t2 = iomoon.target { path = dir .. "/phase2.dat", size = "8m" }
r = iomoon.run { target = { t, t2 }, bs = "4k", random = 100, qd = 8, ios = 4000, trace = 4000 }
do
  local w0, w1 = 0, 0
  for i, w in ipairs(r.trace.worker) do
    if w == 0 then w0 = w0 + 1 else w1 = w1 + 1 end
  end
  tap.ok(r.workers == 2 and w0 == 2000 and w1 == 2000, "two targets: two workers, 2000 I/Os each (%d, %d)", w0, w1)
  tap.ok(type(r.target) == "table" and r.target[2] == t2:path(), "the result names both targets")
end

-- io_uring's kernel features: what this kernel gives, and clear refusals.
-- Whether the kernel has them is asked of it directly (tests/kernel_has.py).
local function kernel_has(what)
  local p = io.popen(string.format("python3 '%s/kernel_has.py' %s", arg[1], what))
  local why = p:read("a"):gsub("\n$", "")
  local _, _, code = p:close()
  return code == 0, why
end
local has_uring, uring_why = kernel_has("io_uring")
local has_aio, aio_why = kernel_has("libaio")
for _, f in ipairs { { "defer_taskrun", "defer%-taskrun" }, { "sqpoll", "sqpoll" } } do
  local has, why = kernel_has(f[1])
  if has then
    r = iomoon.run { target = t, engine = "io_uring", bs = "4k", random = 100, qd = 8, ios = 2000, [f[1]] = true }
    tap.ok(r.ios == 2000 and r.engine_features:find(f[2]), "%s: runs (%s)", f[1], r.engine_features)
  else
    tap.skip(string.format("%s: this kernel does not set up such a ring (%s)", f[1], why))
  end
end
do
  -- the disk under this test's directory, as sysfs names it, and whether
  -- it does polled I/O (a partition's queue is its disk's)
  local st = io.popen("stat -c '%Hd:%Ld' '" .. dir .. "'"):read("l")
  local sys = st and io.popen("readlink -f /sys/dev/block/" .. st):read("l")
  local dev = sys and sys:match("/([^/]+)$")
  local polls
  for _, q in ipairs { "/queue/io_poll", "/../queue/io_poll" } do
    local f = sys and sys ~= "" and io.open(sys .. q)
    if f and not polls then polls = f:read("n") end
    if f then f:close() end
  end
  if not has_uring then
    tap.skip("iopoll: io_uring does not work here (" .. uring_why .. ")")
  elseif polls == 0 then
    tap.refuses("phase.iopoll: .* is on " .. dev:gsub("%p", "%%%0") .. ", which does not do polled I/O %(its queue/io_poll is 0",
      function() return iomoon.run { target = t, engine = "io_uring", bs = "4k", ios = 10, iopoll = true } end,
      "iopoll on a disk without poll queues")
  elseif polls then
    tap.skip(string.format("this test's disk %s does polled I/O (queue/io_poll %d): nothing to refuse", dev, polls))
  else
    tap.skip("this test's directory is on no block device with a queue/io_poll (device " .. tostring(st) .. ")")
  end
end

-- page cache runs are allowed and labelled
r = iomoon.run { target = t, bs = "4k", random = 100, ios = 1000, direct = false }
tap.ok(r.direct == false and r.ios == 1000, "direct = false runs through the page cache and says so")

-- results are kept when asked, and handed to on_result functions
tap.ok(#iomoon.results() >= 10 and iomoon.results()[1].ios == 12345, "iomoon.results() holds every result in order")
do
  local seen = {}
  local remove = iomoon.on_result(function(res) seen[#seen + 1] = res end)
  local r1 = iomoon.run { target = t, engine = "null", bs = "4k", ios = 7 }
  remove()
  iomoon.run { target = t, engine = "null", bs = "4k", ios = 8 }
  tap.ok(#seen == 1 and seen[1] == r1 and seen[1].ios == 7, "on_result sees each result once, until removed")
  local n = #iomoon.results()
  iomoon.keep_results(false)
  tap.refuses("iomoon.results: results are not kept", function() return iomoon.results() end, "results() when not kept")
  iomoon.run { target = t, engine = "null", bs = "4k", ios = 1 }
  iomoon.keep_results(true)
  tap.ok(n > 10 and #iomoon.results() == 0, "keep_results(false) forgets them, and keeps no more")
end

-- bad phase tables: refused, naming the field; a target spec is not created
local spec = { path = dir .. "/never.dat", size = "16m" }
local function refuses(pattern, phase, what)
  tap.refuses(pattern, function() return iomoon.run(phase) end, what)
end
refuses("phase.qd: 0 is out of range", { target = spec, bs = "4k", qd = 0 }, "qd 0")
refuses("phase.qd: 5000 is out of range %(allowed: 1 to 4096%)", { target = spec, bs = "4k", qd = 5000 }, "qd 5000")
refuses("phase.workers: 0 is out of range", { target = spec, bs = "4k", workers = 0 }, "workers 0")
refuses("phase.bs: 3000 is not a multiple of the 512%-byte sector", { target = spec, bs = 3000 }, "bs 3000")
refuses("phase.bs: 0 bytes", { target = spec, bs = 0 }, "bs 0")
refuses("phase.bs: 134217728 bytes is larger than the largest block size, 64 MiB", { target = spec, bs = "128m" }, "bs 128m")
refuses("phase.bs: 33554432 bytes is larger than the region", { target = spec, bs = "32m" }, "bs past the region")
refuses("phase.read: %-1 is outside 0..100", { target = spec, bs = "4k", read = -1 }, "read -1")
refuses('phase.random: "lots" is not a number %(a percentage from 0 to 100', { target = spec, bs = "4k", random = "lots" }, "random 'lots'")
refuses("phase.random: a boolean is not a percentage", { target = spec, bs = "4k", random = true }, "random true")
-- numbers in strings: every number of a phase is a number or a string
-- holding only one, qd and rate alike; a string with more ("1000/s", a
-- unit) is refused by one message
do
  local r = iomoon.run { engine = "sim", bs = "4k", qd = "16", workers = "2", read = "70", rate = "1000", duration = "0.1s" }
  tap.ok(r.qd == 16 and r.workers == 2 and r.mix[1].read_pct == 70 and r.rate_asked_iops == 1000,
    "qd = \"16\", workers = \"2\", read = \"70\", rate = \"1000\": read as 16, 2, 70 and 1000 (%s, %s, %s, %s)",
    r.qd, r.workers, r.mix[1].read_pct, r.rate_asked_iops)
  tap.ok(math.type(r.definition.qd) == "integer" and r.definition.qd == 16 and r.definition.workers == 2,
    "the definition holds them as numbers: qd %s (%s), workers %s", r.definition.qd, math.type(r.definition.qd),
    r.definition.workers)
  r = iomoon.run { engine = "sim", bs = "4k", qd = 4, batch = "2", rate = { iops = "500" }, duration = "0.1s" }
  tap.ok(r.batch_used == 2 and r.rate_asked_iops == 500, "batch = \"2\", rate.iops = \"500\": 2 and 500 (%s, %s)",
    r.batch_used, r.rate_asked_iops)
  r = iomoon.run { engine = "sim", bs = "4k", schedule = { { duration = "0.1s", iops = "200" } } }
  tap.ok(r.rate_asked_iops == 200, "schedule[1].iops = \"200\": 200 (%s)", r.rate_asked_iops)
end
refuses('phase.qd: "16x" is not a number %(a whole number from 1 to 4096; a string must hold only the number, no unit%)',
  { target = spec, bs = "4k", qd = "16x" }, "qd '16x'")
refuses('phase.rate: "1000/s" is not a number %(a rate: I/Os per second for the whole phase, as 1000 or "1000"; a string must hold only the number, no unit%)',
  { target = spec, bs = "4k", rate = "1000/s" }, "rate '1000/s'")
refuses('phase.rate.iops: "1k" is not a number %(a rate', { target = spec, bs = "4k", rate = { iops = "1k" } }, "rate.iops '1k'")
refuses('phase.read: "70 pct" is not a number %(a percentage', { target = spec, bs = "4k", read = "70 pct" }, "read '70 pct'")
refuses('phase.batch: "two" is not a number %(a batch', { target = spec, bs = "4k", qd = 4, batch = "two" }, "batch 'two'")
refuses('phase.schedule%[1%].iops: "5/s" is not a number', { target = spec, bs = "4k", schedule = { { duration = 1, iops = "5/s" } } }, "schedule iops '5/s'")
refuses("phase.qd: a boolean is not a whole number", { target = spec, bs = "4k", qd = true }, "qd true")
refuses("phase.rate: a boolean is not a rate", { target = spec, bs = "4k", rate = true }, "rate true")
refuses("phase.mix: weights sum to 90 %%", { target = spec, mix = { { bs = "4k", weight = 50 }, { bs = "8k", weight = 40 } } }, "weights 90")
refuses("phase.mix: 1 of 2 specs have a weight", { target = spec, mix = { { bs = "4k", weight = 50 }, { bs = "8k" } } }, "a missing weight")
refuses("phase.mix%[2%]: unknown field 'blocksize'", { target = spec, mix = { { bs = "4k", weight = 50 }, { blocksize = "8k", weight = 50 } } }, "unknown spec field")
refuses("phase.mix%[1%].bs: weights sum to 60 %%", { target = spec, mix = { { bs = { { "4k", 30 }, { "8k", 30 } } } } }, "bs weights 60")
refuses("phase.bs: given with phase.mix", { target = spec, bs = "4k", mix = { { bs = "4k" } } }, "bs with mix")
refuses("phase.mix: missing", { target = spec }, "no mix and no bs")
refuses("phase: unknown field 'iodepth', fio's name: did you mean qd%?", { target = spec, bs = "4k", iodepth = 32 }, "fio's name for qd")
-- fio's names of fields: refused naming iomoon's (edit distance alone finds none of them)
for fio, ours in pairs { numjobs = "workers", rw = "read and random", runtime = "duration", blocksize = "bs",
    rwmixread = "read", ioengine = "engine" } do
  refuses("phase: unknown field '" .. fio .. "', fio's name: did you mean " .. ours, { target = spec, bs = "4k", [fio] = 1 },
    "fio's name " .. fio)
end
refuses("phase.streams%[1%]: unknown field 'iodepth', fio's name: did you mean qd%?",
  { target = spec, duration = "1s", streams = { { bs = "4k", iodepth = 2 } } }, "fio's name in a stream")
-- a share between 0 and 1 is the fraction it looks like: refused, asking for the percentage
refuses("phase.read: 0.7 means 0.7 %%, not 70 %% %(a percentage from 0 to 100, not a fraction%): did you mean 70%? "
  .. '%(a share under 1 %% is written as a string, "0.7%%"%)', { target = spec, bs = "4k", read = 0.7 }, "read 0.7")
refuses("phase.random: 0.5 means 0.5 %%, not 50 %%.*did you mean 50%?", { target = spec, bs = "4k", random = 0.5 }, "random 0.5")
refuses("phase.trim: 0.25 means 0.25 %%, not 25 %%.*did you mean 25%?", { target = spec, bs = "4k", read = 0, trim = 0.25 }, "trim 0.25")
refuses("phase.mix%[1%].read: 0.7 means 0.7 %%.*did you mean 70%?", { target = spec, mix = { { bs = "4k", read = 0.7 } } }, "mix read 0.7")
refuses('phase.read: 0.7 means 0.7 %%', { target = spec, bs = "4k", read = "0.7" }, "read '0.7'")
do -- and written with its sign, a share under 1 % (or any) is taken as it says
  local r = iomoon.run { engine = "null", bs = "4k", read = "0.5%", random = "100%", ios = 20000 }
  tap.ok(r.read.ios > 0 and r.read.ios < 400, "read = \"0.5%%\": 0.5 %% reads (%d of 20000)", r.read.ios)
  r = iomoon.run { engine = "null", bs = "4k", read = 1, ios = 100 }
  tap.ok(r.errors == 0, "read = 1 is 1 %% (not refused)")
end
refuses("phase.engine: 'spdk' is not an engine", { target = spec, bs = "4k", engine = "spdk" }, "unknown engine")
refuses("phase.region: offset 0 %+ size 33554432 runs past the end", { target = spec, bs = "4k", region = "32m" }, "region past the end")
refuses("phase.region.offset: 100 is not a multiple of the 512%-byte sector", { target = spec, bs = "4k", region = { offset = 100 } }, "unaligned region")
refuses("phase.duration: 0", { target = spec, bs = "4k", duration = 0 }, "duration 0")
refuses("phase.duration: '5 weeks' has an unknown unit", { target = spec, bs = "4k", duration = "5 weeks" }, "duration unit")
refuses("phase.rate.iops: %-5 is not a rate", { target = spec, bs = "4k", rate = { iops = -5 } }, "negative rate")
refuses("phase.rate.arrival: 'bursty' is not an arrival process", { target = spec, bs = "4k", rate = { iops = 5, arrival = "bursty" } }, "arrival")
refuses("phase.think: given with a rate", { target = spec, bs = "4k", rate = 5, think = "1ms" }, "think with rate")
refuses("phase.think.delay: missing", { target = spec, bs = "4k", think = { burst = 4 } }, "burst without delay")
refuses("phase.schedule%[2%].iops: must be a number", { target = spec, bs = "4k", schedule = { { duration = 1, iops = 5 }, { duration = 1 } } }, "schedule without iops")
refuses("phase.dist: 'pareto:2': pareto's h must be between 0 and 1", { target = spec, bs = "4k", dist = "pareto:2" }, "pareto 2")
refuses("phase.dist: 'zoned:50/50:40/50': access shares sum to 90", { target = spec, bs = "4k", dist = "zoned:50/50:40/50" }, "zones 90")
refuses("phase.dist: 'gauss' is not a distribution", { target = spec, bs = "4k", dist = "gauss" }, "unknown dist")
refuses("phase.pattern: 'ones' is not a data pattern", { target = spec, bs = "4k", pattern = "ones" }, "pattern")
refuses("phase.on_error: 'retry' is not allowed", { target = spec, bs = "4k", on_error = "retry" }, "on_error")
refuses("phase.interval: 1ms is shorter than 10 ms", { target = spec, bs = "4k", interval = "1ms" }, "interval 1ms")
refuses("phase.batch: 8 is out of range %(allowed: 1 to 4%)", { target = spec, bs = "4k", qd = 4, batch = 8 }, "batch over qd")
-- (an engine the kernel lacks is refused first, for that: tests/20-engines.t)
if has_aio then
  refuses("phase.sqpoll: an io_uring feature, asked of engine libaio", { target = spec, bs = "4k", engine = "libaio", sqpoll = true }, "sqpoll on libaio")
else
  tap.skip("sqpoll on libaio: libaio does not work here (" .. aio_why .. ")")
end
if has_uring then
  refuses("phase.defer_taskrun: not with sqpoll", { target = spec, bs = "4k", engine = "io_uring", sqpoll = true, defer_taskrun = true }, "defer_taskrun with sqpoll")
  refuses("phase.iopoll: needs direct=true", { target = spec, bs = "4k", engine = "io_uring", iopoll = true, direct = false }, "iopoll buffered")
else
  tap.skip("defer_taskrun with sqpoll: io_uring does not work here (" .. uring_why .. ")")
  tap.skip("iopoll buffered: io_uring does not work here (" .. uring_why .. ")")
end
refuses("phase.qd: 4 with engine psync", { target = spec, bs = "4k", qd = 4, engine = "psync" }, "psync with qd 4")
refuses("phase: qd 4096 x bs 67108864 x workers 1 needs 256.0 GiB", { target = { path = dir .. "/never.dat", size = "1g" }, bs = "64m", qd = 4096 }, "buffers beyond memory")
refuses("phase.workers: 1 is fewer than the 2 targets", { target = { t, t2 }, bs = "4k", workers = 1 }, "fewer workers than targets")
refuses("phase.target: missing", { bs = "4k" }, "no target")
refuses("phase.target.size: needed to create", { target = { path = dir .. "/never.dat" }, bs = "4k" }, "spec without size")
refuses("phase.target: unknown field 'sz'", { target = { path = dir .. "/never.dat", sz = 1 }, bs = "4k" }, "spec typo")
refuses("phase.target.path: /dev/null is a character device, not a regular file or block device", { target = "/dev/null", bs = "4k" }, "a character device")
refuses("phase.target.path: .* does not exist", { target = dir .. "/nope.dat", bs = "4k" }, "a missing path")
refuses("phase.verify: 'crc' is not a verification", { target = spec, bs = "4k", verify = "crc" }, "verify kind")
tap.refuses("iomoon.run: expects a phase table, got a number", function() return iomoon.run(5) end, "a number for a phase")
tap.ok(io.open(dir .. "/never.dat") == nil, "no refused phase created its target file")

-- named access specs: figures per spec (IOMeter's per-access-spec rows)
r = iomoon.run { target = t, ios = 20000, qd = 8, workers = 2, mix = {
  { name = "reads 8k", bs = "8k", read = 100, weight = 60 },
  { name = "writes 64k", bs = "64k", read = 0, random = 0, weight = 30 },
  { bs = "4k", read = 50, weight = 10 } } }
local a, b = r.specs["reads 8k"], r.specs["writes 64k"]
tap.ok(a.ios + b.ios < r.ios and a.ios + b.ios > r.ios * 0.85, "named specs' ios are the phase's less the unnamed spec's (%d + %d of %d)",
  a.ios, b.ios, r.ios)
tap.ok(a.read_ios == a.ios and a.write_ios == 0 and b.write_ios == b.ios and b.read_ios == 0,
  "each spec counts its own op types (reads %d; writes %d)", a.read_ios, b.write_ios)
tap.ok(a.bytes == a.ios * 8192 and b.bytes == b.ios * 65536, "each spec's bytes are its I/Os x its size")
tap.ok(math.abs(a.ios / r.ios - 0.6) < 0.03 and math.abs(b.ios / r.ios - 0.3) < 0.03, "the weights hold: %.3f and %.3f",
  a.ios / r.ios, b.ios / r.ios)
tap.ok(a.lat.p50_ns > 0 and a.lat.max_ns <= r.lat.max_ns, "each spec has its own latency, within the phase's")
tap.ok(a.ios + b.ios + r.read.ios * 0 <= r.read.ios + r.write.ios, "specs add up within the phase's")
tap.refuses("result.specs%[name%]: no field 'ios_typo'", function() return a.ios_typo end, "a spec's figures are sealed too")
tap.refuses("result.specs%[name%].lat: no field 'p99'", function() return a.lat.p99 end, "and their latency")
local r0 = iomoon.run { target = t, ios = 100, bs = "4k" }
tap.ok(r0.specs == nil, "no named spec: no specs in the result")
refuses("phase.mix%[2%].name: 'x' is also the name of phase.mix%[1%]",
  { target = spec, mix = { { name = "x", bs = "4k", weight = 50 }, { name = "x", bs = "8k", weight = 50 } } }, "a name twice")
refuses("phase.mix%[1%].name: give a name of 1 to 63 bytes", { target = spec, mix = { { name = 5, bs = "4k" } } }, "a number for a name")
print("1.." .. tap.n)
