-- The Lua library: presets, suite expansion, the ready suites' definitions
-- against the seeds, think patterns measured, plans, find_max on a device
-- with a known knee, and the SNIA steady-state rule on synthetic series.
local iomoon = require "iomoon"
local presets = require "iomoon.presets"
local suite = require "iomoon.suite"
local think = require "iomoon.think"
local plan = require "iomoon.plan"
local report = require "iomoon.report"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]

-- presets
for _, s in ipairs { "8k_55%Read_80%Random", "0.5k_100%Read_0%Random", "64k_66%Read_100%Random", "32k_50%Read_0%Random" } do
  tap.ok(presets.name(presets.parse(s)) == s, "access spec %s parses and names back", s)
end
do
  local p = presets.parse "0.5k_100%Read_0%Random"
  tap.ok(p.bs == 512 and p.read == 100 and p.random == 0, "0.5k is 512 bytes")
end
tap.refuses("access spec '8k_55%%Read': expected three parts", function() return presets.parse "8k_55%Read" end, "two parts")
tap.refuses("block size 'eightk' is not a size", function() return presets.parse "eightk_55%Read_80%Random" end, "a bad size")
tap.refuses("block size '3255208382161458.5k' is larger than the largest a phase runs, 64 MiB",
  function() return presets.parse "3255208382161458.5k_5%Read_8%Random" end, "a block size past 64 MiB (found by make fuzz)")
tap.refuses("block size '0k' is zero", function() return presets.parse "0k_55%Read_80%Random" end, "a zero block size")
tap.refuses("access spec '0\\x00%.5k_100%%Read_0%%Random': block size '0\\x00%.5k' is not a size", function() return presets.parse "0\0.5k_100%Read_0%Random" end,
  "a NUL byte inside the size (found by make fuzz)")
tap.refuses("size: the string holds a NUL byte at position 2", function() return iomoon.size "4\0k" end, "a NUL byte in a size")
tap.ok(presets.name(presets.parse "65535.5k_0%Read_0%Random") == "65535.5k_0%Read_0%Random",
  "a large half-KiB size names back without an exponent (found by make fuzz)")
do
  local p = presets.parse "8k_50.333333333333336%Read_7%Random"
  tap.ok(presets.parse(presets.name(p)).read == p.read, "a percentage with many decimals names back exactly (found by make fuzz)")
end
tap.refuses("'155%%Read' is not a percentage of Read", function() return presets.parse "8k_155%Read_80%Random" end, "155 %")
tap.refuses("'80%%Rnd' is not a percentage of Random", function() return presets.parse "8k_55%Read_80%Rnd" end, "a bad word")
tap.refuses("preset 'Exchange 2010' does not exist %(presets: Exchange 2007,", function() return presets.get "Exchange 2010" end, "an unknown preset")

-- expansion
do
  local ps = suite.for_each { bs = { "4k", "16k", "32k" }, read = { 100, 50, 0 }, random = { 0, 100 } }
  tap.ok(#ps == 18, "for_each over 3 x 3 x 2 gives 18 phases")
  ps = suite.for_each({ bs = { "4k", "8k" }, read = { 100, 0 }, order = { "bs", "read" } }, { qd = 4 })
  tap.ok(#ps == 4 and ps[2].bs == "4k" and ps[2].read == 0 and ps[3].bs == "8k" and ps[4].qd == 4,
    "for_each: the first axis is the outer loop, the base is copied")
  tap.ok(table.concat(suite.qd_cycle(1, 256), ",") == "1,2,4,8,16,32,64,128,256", "qd_cycle 1..256")
  tap.ok(suite.iometer_name { bs = "4k", read = 50, random = 100 } == "4K; 50% Read; 100% random", "IOMeter's test names")
  tap.refuses("for_each.bs: give a non%-empty list", function() return suite.for_each { bs = {} } end, "an empty axis")
end

-- the ready suites, as the seeds define them
local function phases(name, opts)
  return suite.phases(suite.load(name), opts or { area_bytes = 1 << 30 })
end
do
  local ps = phases "iometer-matrix"
  local want, ok_all = {}, true
  for _, random in ipairs { 0, 100 } do
    for _, bs in ipairs { 4, 16, 32 } do
      for _, read in ipairs { 100, 50, 0 } do
        want[#want + 1] = string.format("%dK; %d%% Read; %d%% random", bs, read, random)
      end
    end
  end
  for i, p in ipairs(ps) do
    ok_all = ok_all and p.name == want[i] and p.qd == 32 and iomoon.size(p.bs) == tonumber(want[i]:match("^(%d+)K")) * 1024
  end
  tap.ok(#ps == 18 and ok_all, "iometer-matrix: seed 000's 18 tests in its order and names, QD 32")
  tap.ok(suite.load("iometer-matrix").size == "20g", "iometer-matrix: the seed's 20 GB test area")
end
do
  local ps = phases "openperformancetest"
  local want = {
    { "Max Throughput-100%Read", 32768, 100, 0 }, { "RealLife-60%Rand-65%Read", 8192, 65, 60 },
    { "Max Throughput-50%Read", 32768, 50, 0 }, { "Random-8k-70%Read", 8192, 70, 100 },
  }
  local good = #ps == 4
  for i, w in ipairs(want) do
    local p = ps[i]
    good = good and p.name == w[1] and iomoon.size(p.bs) == w[2] and p.read == w[3] and p.random == w[4] and p.qd == 64
  end
  tap.ok(good, "openperformancetest: seed 003's four tests, 64 outstanding I/Os")
  tap.ok(suite.load("openperformancetest").size == "4g", "openperformancetest: a 4 GB test area")
end
do
  local ps = phases "io-analyzer"
  local want = { { "Max Read IOPS", "0.5k_100%Read_0%Random" }, { "Max Write IOPS", "0.5k_0%Read_0%Random" },
    { "Exchange 2007", "8k_55%Read_80%Random" }, { "SQL 64k", "64k_66%Read_100%Random" } }
  local good = #ps == 4
  for i, w in ipairs(want) do
    good = good and ps[i].name == w[1] and presets.name(ps[i]) == w[2] and ps[i].meta.spec == w[2]
  end
  tap.ok(good, "io-analyzer: seed 004's four presets with their access specs")
  tap.ok(ps[1].duration == "2m", "io-analyzer: the seed's two-minute interval")
end
do
  local ps = phases "oltp"
  local d = ps[2].mix[1]
  local l = ps[2].mix[2]
  tap.ok(#ps == 2 and d.bs == "8k" and d.read == 66 and d.random == 100 and l.read == 0 and l.random == 0
    and l.region.offset == d.region.size, "oltp: seed 002's 66 %% read 8k random mix, and a log in its own area")
end
do
  local ps = phases "burn-in"
  local names = {}
  for i, p in ipairs(ps) do names[i] = p.name end
  tap.ok(table.concat(names, ",") == "fill,pass 1: verify,pass 1: random,pass 1: rewrite,pass 2: verify,pass 2: random,pass 2: rewrite,final verify",
    "burn-in: fill, two passes, a final verify")
  tap.ok(ps[1].bytes == 1 << 30 and ps[1].verify == "crc32c" and ps[2].verify_only and ps[3].verify == "crc32c",
    "burn-in: covers the area and checks every read (crc32c)")
  ps = phases("burn-in", { area_bytes = 1 << 30, time = "1s" })
  tap.ok(ps[1].duration == nil and ps[3].duration == "1s", "--time shortens timed phases only, not the covering passes")
end
-- the application models (issue 11), as doc/suites.md gives their sources
do
  local ps = phases "postgres"
  local st = ps[1].streams
  local data, wal, ckpt = st[1], st[2], st[3]
  tap.ok(#ps == 1 and #st == 3 and data.bs == "8k" and data.read == 70 and data.random == 100
    and wal.bs == "8k" and wal.read == 0 and wal.random == 0 and wal.qd == 1 and wal.fdatasync == 1
    and wal.region.offset == data.region.size and wal.region.offset + wal.region.size == 1 << 30
    and ckpt.read == 0 and ckpt.region.offset == 0 and ckpt.schedule[1].iops == 0 and ckpt.schedule[2].iops > 0,
    "postgres: 8k data pages 70/30, a WAL after them with fdatasync per write, a checkpoint that idles then bursts")
  local sum = 0
  for _, seg in ipairs(phases("postgres", { area_bytes = 16 << 20, time = "0.4" })[1].streams[3].schedule) do
    sum = sum + seg.duration
  end
  tap.ok(math.abs(sum - 0.4) < 1e-9, "postgres: the checkpoint's schedule spans --time")
  st = phases("lsm-store")[1].streams
  tap.ok(#st == 4 and st[1].fsync == 4 and st[1].read == 0 and st[1].random == 0 and st[2].read == 100
    and st[2].region.offset == st[1].region.offset and st[3].bs == "4k" and st[3].random == 100
    and st[3].region.offset == st[1].region.size and st[4].bs == "1m",
    "lsm-store: log appends with fsync every 4, a tail reader of the log, 4k point reads and compaction of the tables")
  st = phases("jetstress")[1].streams
  tap.ok(#st == 2 and st[1].bs == "32k" and st[1].read == 60 and st[2].bs == "8k" and st[2].read == 0
    and st[2].sync == "dsync" and st[1].rate.iops == 10 * st[2].rate.iops,
    "jetstress: 32k database pages 60 %% read, an 8k O_DSYNC log at a tenth of the database's rate")
  st = phases("boot-storm")[1].streams
  local w, reads = 0, 0
  for _, spec in ipairs(st[1].mix) do
    w = w + spec.weight
    if spec.read == 100 then reads = reads + spec.weight end
  end
  tap.ok(#st == 2 and st[1].workers == 32 and st[1].qd == 1 and w == 100 and reads == 84 and st[2].rate.iops == 400,
    "boot-storm: 32 desktops booting, 84 %% reads, beside running desktops at 400 IOPS")
end
tap.refuses("suite 'nope' does not exist %(ready suites: boot%-storm, build%-tree, burn%-in, data%-reduction, elbencho, io%-analyzer, iometer%-matrix, jetstress, lsm%-store, mdtest, oltp, openperformancetest, postgres, postmark, power%-cut, quick",
  function() return suite.load "nope" end, "an unknown suite")

-- think patterns, measured on a device that keeps up (sim, 50 us)
local t = iomoon.target { path = dir .. "/lib.dat", size = "16m" }
local base = { target = t, engine = "sim", sim_latency = "50us", qd = 8, bs = "4k", interval = "0.5s" }
local function run(...) return iomoon.run(think.apply(base, ...)) end
do
  local r = run(think.rate(2000), { duration = "1s" })
  tap.timed_near(r.iops, 2000, 40, "think.rate(2000)")
  r = run(think.poisson(2000), { duration = "1s", trace = 5000 })
  tap.timed_near(r.iops, 2000, 120, "think.poisson(2000)")
  r = run(think.step { { 0.5, 1000 }, { 0.5, 3000 } })
  tap.timed_ok(math.abs(r.intervals[1].iops - 1000) < 60 and math.abs(r.intervals[2].iops - 3000) < 150,
    "think.step: %.0f then %.0f IOPS (1000, 3000)", r.intervals[1].iops, r.intervals[2].iops)
  r = run(think.on_off { on = 0.5, off = 0.5, iops = 2000, duration = 2 })
  local iv = r.intervals
  tap.timed_ok(#iv == 4 and iv[1].iops > 1900 and iv[2].iops < 20 and iv[3].iops > 1900 and iv[4].iops < 20,
    "think.on_off: 2000, 0, 2000, 0 IOPS (%.0f, %.0f, %.0f, %.0f)", iv[1].iops, iv[2] and iv[2].iops or -1,
    iv[3] and iv[3].iops or -1, iv[4] and iv[4].iops or -1)
  r = run(think.ramp { from = 1000, to = 4000, steps = 4, duration = 2 })
  iv = r.intervals
  tap.timed_ok(#iv == 4 and math.abs(iv[1].iops - 1000) < 60 and math.abs(iv[4].iops - 4000) < 200 and iv[2].iops < iv[3].iops,
    "think.ramp 1000 -> 4000 in 4 steps: %.0f ... %.0f IOPS", iv[1].iops, iv[#iv].iops)
  local d = think.diurnal { trough = 500, peak = 4500, period = 2, steps = 4 }
  r = run(d)
  iv = r.intervals
  tap.timed_ok(#iv == 4 and iv[1].iops < iv[2].iops and iv[2].iops > iv[4].iops and math.abs(iv[2].iops - d.schedule[2].iops) < 200,
    "think.diurnal: low, high, high, low (%.0f %.0f %.0f %.0f)", iv[1].iops, iv[2].iops, iv[3].iops, iv[4].iops)
  local w = iomoon.csv.writer(dir .. "/profile.csv")
  w:row { "seconds", "iops" }; w:row { 0.5, 1500 }; w:row { 0.5, 500 }
  w:close()
  r = run(think.from_csv(dir .. "/profile.csv"))
  tap.timed_ok(math.abs(r.intervals[1].iops - 1500) < 80 and math.abs(r.intervals[2].iops - 500) < 40,
    "think.from_csv: 1500 then 500 IOPS (%.0f, %.0f)", r.intervals[1].iops, r.intervals[2].iops)
  tap.refuses("think.from_csv: .* needs columns 'seconds' and 'rate'", function()
    return think.from_csv(dir .. "/profile.csv", { iops_col = "rate" }) end, "a profile without its column")
  r = run(think.burst(5, "10ms"), { duration = "0.5s" })
  tap.timed_ok(r.ios >= 200 and r.ios <= 250, "think.burst(5, 10ms) for 0.5 s: %d I/Os (about 245)", r.ios)
end

-- steady state (SNIA PTS): synthetic series
do
  tap.ok(plan.is_steady { 100, 102, 98, 101, 99 }, "steady: flat with little noise")
  tap.ok(not plan.is_steady { 100, 105, 110, 115, 120 }, "not steady: a drift of 5 %% a round")
  tap.ok(not plan.is_steady { 100, 130, 85, 120, 90 }, "not steady: noise over 20 %% of the mean")
  tap.ok(not plan.is_steady { 100, 100, 100, 100 }, "not steady: fewer rounds than the window")
  local steady, f = plan.is_steady { 50, 60, 100, 101, 99, 100, 100 }
  tap.ok(steady and math.abs(f.mean - 100) < 1e-9, "steady: only the last 5 rounds count")
  -- excursion 18 % of the mean passes, slope of the fit 12 % fails: the second rule alone
  steady, f = plan.is_steady { 94, 97, 100, 103, 106 }
  tap.ok(not steady and f.range / f.mean <= 0.2 and f.fit_range / f.mean > 0.1,
    "not steady: within the 20 %% excursion but the fit's slope spans %.0f %%", 100 * f.fit_range / f.mean)
  -- a steady device: paced at 2000 IOPS, which sim keeps whatever else
  -- the machine does (a closed loop's rate on a shared VM is not steady)
  local s = plan.until_steady { phase = think.apply(base, think.rate(2000), { duration = "0.2s" }), max_rounds = 8 }
  tap.timed_ok(s.steady and s.rounds == 5, "until_steady on a steady device: steady after 5 rounds (%d)", s.rounds or -1)
  -- a figure that climbs every round is never steady
  local climbing = 0
  s = plan.until_steady { phase = think.apply(base, { duration = "0.1s" }), max_rounds = 3, window = 3,
    track = function(_) climbing = climbing + 100; return climbing end }
  tap.ok(s.steady == false and s.reason == "no steady state within 3 rounds", "until_steady gives up and says so")
end

-- find_max's search, judged on a model device whose answer does not
-- depend on this VM's load: the knee at 4000 IOPS (above it p99 is 50 ms),
-- and a host that stalls the first `stalls` probes of every rate (half the
-- rate achieved, p99 30 ms), the worst a busy hypervisor does to a search.
do
  local real_run = iomoon.run
  local function search(stalls, confirm)
    local seen = {}
    iomoon.run = function(p)
      local asked = p.rate.iops
      seen[asked] = (seen[asked] or 0) + 1
      local stalled = seen[asked] <= stalls
      local p99 = stalled and 30e6 or asked > 4000 and 50e6 or 1e6
      return { errors = 0, iops = stalled and asked / 2 or math.min(asked, 4000), seconds = 0.4,
        lat = { p50_ns = 1e6, p99_ns = p99 }, intervals = {} }
    end
    local ok, r = pcall(plan.find_max, { phase = { target = t, engine = "sim", sim_latency = "1ms", qd = 4, bs = "4k",
      duration = "0.4s" }, bound = "5ms", from = 500, confirm = confirm })
    iomoon.run = real_run
    if not ok then error(r, 0) end
    return r
  end
  for _, c in ipairs { { 0, 1 }, { 2, 3 }, { 0, 3 } } do
    local r = search(c[1], c[2])
    tap.ok(r.iops and r.iops >= 3800 and r.iops <= 4000,
      "find_max on a model with its knee at 4000 IOPS, %d stalled probes a rate, confirm = %d: %s IOPS (3800 to 4000)",
      c[1], c[2], tostring(r.iops))
  end
  local r = search(2, 2)
  tap.ok(r.iops == nil, "the same stalls with confirm = 2 fail the first rate (%s): confirm is what holds the search",
    tostring(r.iops))
end

-- find_max on the sim device (qd 4 at 1 ms: knee at 4000 IOPS). The sim
-- spins on this VM's CPU, so a stalled host can end the search lower
-- (once at 905); what must hold whatever the load is that the rate found
-- was sustained within the bound, never above what the device can do.
do
  local r = plan.find_max { phase = { target = t, engine = "sim", sim_latency = "1ms", qd = 4, bs = "4k", duration = "0.4s" },
    bound = "5ms", from = 500, confirm = 3 }
  -- nil only when the first rate failed the bound (a loaded machine's sim
  -- can miss 5 ms even at 500 IOPS); how high it climbs is timing
  tap.ok(r.iops and r.iops <= 4100 or r.iops == nil and not r.probes[1].ok,
    "find_max on the sim: %s IOPS in %d probes (at most the knee's 4000 + 2.5 %%)", tostring(r.iops), #r.probes)
  tap.ok(r.iops == nil or r.result.lat.p99_ns <= 5e6, "find_max's result meets the bound")
  tap.timed_ok(r.iops and r.iops >= 2000, "find_max on the sim climbs toward the knee: %s IOPS", tostring(r.iops))
  r = plan.find_max { phase = { target = t, engine = "sim", sim_latency = "10ms", qd = 1, bs = "4k", duration = "0.3s" },
    bound = "5ms", from = 10 }
  tap.ok(r.iops == nil and #r.probes == 2, "find_max: nil when even the first rate breaks the bound (confirmed by a second probe)")
  -- a rate the device cannot sustain is never reported: qd 8 at 2 ms is a
  -- hard ceiling of 4000 IOPS; other knees and probe lengths likewise
  for _, c in ipairs { { 8, "2ms", 4000, "0.4s" }, { 2, "1ms", 2000, "0.5s" }, { 16, "4ms", 4000, "0.6s" } } do
    r = plan.find_max { phase = { target = t, engine = "sim", sim_latency = c[2], qd = c[1], bs = "4k", duration = c[4] },
      bound = "20ms", percentile = 99, from = 500 }
    local worst = 1
    for _, p in ipairs(r.probes) do
      if p.ok then worst = math.min(worst, p.achieved_iops / p.iops) end
    end
    -- a good probe may fall short of 99 % only by the I/Os in flight at its
    -- end (qd of them: 1.3 % of a 0.3 s probe at 4000 IOPS with qd 16).
    -- How near the ceiling the search ends is the host's business (the
    -- sim spins: a loaded VM ended one at 2730 of 4000); that it climbs to
    -- a knee is the model device's test above, which load cannot move.
    tap.ok(r.iops and r.iops <= c[3] and r.iops <= r.asked_iops and worst >= 0.98
      or r.iops == nil and not r.probes[1].ok,
      "find_max on qd %d x %s (ceiling %d IOPS, %s probes): %s IOPS achieved, asked %s; every good probe achieved >= 98 %% (%.3f)",
      c[1], c[2], c[3], c[4], tostring(r.iops), tostring(r.asked_iops), worst)
  end
end

-- every table the library takes is checked: a typo is an input error
-- naming the field and the near name, never silently ignored
do
  local ph = { target = t, engine = "sim", bs = "4k", ios = 10 }
  tap.refuses("plan step 'soak': unknown field 'fail_if' %(did you mean 'fail_when'%?%)", function()
    plan.new():step { name = "soak", phase = ph, fail_if = function() return true end } end, "fail_if for fail_when")
  tap.refuses("plan step 'x': unknown field 'untilok' %(did you mean 'until_ok'%?%)", function()
    plan.new():step { name = "x", phase = ph, untilok = function() return true end } end, "untilok")
  tap.refuses("until_steady: unknown field 'max_round' %(did you mean 'max_rounds'%?%)", function()
    plan.until_steady { phase = ph, max_round = 3 } end, "max_round")
  tap.refuses("find_max: unknown field 'percentle' %(did you mean 'percentile'%?%)", function()
    plan.find_max { phase = ph, bound = "1ms", percentle = 99 } end, "percentle")
  tap.refuses("plan.new.on_error: 'ignore' is not allowed", function() plan.new { on_error = "ignore" } end,
    "on_error = ignore")
  tap.refuses("think.ramp: unknown field 'form' %(did you mean 'from'%?%)", function()
    think.ramp { duration = "1s", form = 10, to = 100 } end, "think.ramp's form")
  tap.refuses("plan step 'x'.times: a string is not allowed", function()
    plan.new():step { name = "x", phase = ph, times = "3" } end, "a wrong type")
  tap.refuses("until_steady.track: 'iop' is not a number in the result %(did you mean 'iops'%?%)", function()
    plan.until_steady { phase = ph, track = "iop", max_rounds = 2, window = 2 } end, "a track field that does not exist")
  local named = think.apply({ name = "mine", bs = "4k" }, { name = "preset", read = 50 })
  tap.ok(named.name == "mine" and named.read == 50, "think.apply keeps the phase's own name (%s)", named.name)
end

-- plans
do
  local seen = {}
  local p = plan.new { before = function(step) seen[#seen + 1] = "before " .. step.name end,
    after = function(step, r) seen[#seen + 1] = "after " .. step.name end }
  p:step { name = "a", phase = think.apply(base, { ios = 100 }) }
  p:step { name = "b", times = 3, phase = function(ctx) return think.apply(base, { ios = 100 * ctx.round }) end }
  p:step { name = "c", phase = think.apply(base, { ios = 10 }), until_ok = function(_, ctx) return ctx.round == 2 end }
  local ctx = p:run()
  tap.ok(not ctx.stopped and #ctx.results.b == 3 and ctx.results.b[3].ios == 300 and #ctx.results.c == 2,
    "plan: times = 3, phases from a function, until_ok after 2 rounds")
  tap.ok(#seen == 12 and seen[1] == "before a" and seen[12] == "after c", "plan: hooks before and after every round")
  tap.ok(ctx.results.b[2].name == "b #2", "plan: repeated rounds are named by number")
  p = plan.new {}
  p:step { name = "hot", phase = think.apply(base, { ios = 100 }), fail_when = function(r) return r.ios == 100 end }
  p:step { name = "never", phase = think.apply(base, { ios = 100 }) }
  ctx = p:run()
  tap.ok(ctx.stopped == "step 'hot' met its fail_when condition" and ctx.results.never == nil, "plan: fail_when stops the plan")
  p = plan.new {}
  p:step { name = "broken", phase = think.apply(base, { ios = 10 }), until_ok = function(r) return r.nope.x end }
  tap.refuses("plan step 'broken': until_ok failed: .*result: no field 'nope'", function() return p:run() end,
    "a condition that errors")
  tap.refuses("plan step 'x': times = 0 is not a count", function() plan.new():step { name = "x", phase = {}, times = 0 } end, "times 0")
end

-- reports
do
  local rs = { iomoon.run(think.apply(base, { name = "one", ios = 1000, meta = { spec = "4k_100%Read_0%Random" } })) }
  local block = report.analyzer_block(rs[1])
  tap.ok(block:match("^AccessSpec=4k_100%%Read_0%%Random\nIOps=[%d.]+\nReadIOps=[%d.]+\nWriteIOps=0%.00\nMBps=[%d.]+\nReadMBps=[%d.]+\nWriteMBps=0%.00\n$"),
    "the I/O Analyzer raw block")
  tap.ok(report.markdown(rs):match("^engine [^\n]*\n\n| Test name | IOPS |.*\n| one | %d+ |"),
    "a Markdown table, how the phase ran above it")
  local w = report.writer(dir .. "/live.json", "json")
  w:add(rs[1])
  local f = io.open(dir .. "/live.json"):read("a")
  tap.ok(f:match('"phases": %[') and f:match('"name": "one"'), "report.writer keeps a complete file after each result")
end
-- the helpers make streams as they make phases (issue 11)
do
  local util = require "iomoon.util"
  local oltp = presets.get "oltp"
  tap.ok(oltp.name == "OLTP" and oltp.bs == 8192 and oltp.read == 66, "presets.get finds a preset in any case (oltp: %s)", oltp.name)
  local axes = suite.for_each({ qd = { 1, 4 }, order = { "qd" } }, { bs = "4k", read = 0 })
  local streams = {
    util.merge(oltp, { qd = 4 }),
    think.apply({ name = "paced", bs = "4k", random = 100, qd = 4 }, think.poisson(500)),
    think.apply({ name = "steps", bs = "4k" }, think.step { { 0.3, 200 }, { 0.3, 400 } }),
    axes[1], axes[2],
  }
  -- on sim, and on a small file
  for _, where in ipairs { { engine = "sim" }, { target = { path = dir .. "/streams.dat", size = "8m" } } } do
    local r = iomoon.run(util.merge(where, { name = "lib", duration = "0.6s", streams = streams }))
    local o, p, st, a, b = table.unpack(r.streams)
    local on = where.engine or "a file"
    tap.ok(#r.streams == 5 and o.name == "OLTP" and o.mix[1].read_pct == 66 and o.mix[1].random_pct == 100
      and o.read.ios > 0 and o.write.ios > 0 and o.qd == 4,
      "%s: presets.get is a stream (%s: %d reads, %d writes, QD %d)", on, o.name, o.read.ios, o.write.ios, o.qd)
    tap.ok(p.name == "paced" and p.rate_asked_iops == 500 and p.rate_arrival == "poisson" and p.iops > 250 and p.iops < 750,
      "%s: think.poisson paces its stream alone (%.0f IOPS of 500)", on, p.iops)
    tap.near(st.rate_asked_iops, 300, 15, "%s: think.step's schedule is its stream's (asked over the phase)", on)
    tap.ok(a.name == "stream 4" and a.qd == 1 and b.qd == 4 and a.write.ios > 0 and a.read.ios == 0,
      "%s: suite.for_each's tables are streams (QD %d and %d)", on, a.qd, b.qd)
    tap.ok(r.ios == o.ios + p.ios + st.ios + a.ios + b.ios and r.rate_asked_iops == nil,
      "%s: the phase adds its streams up (%d I/Os)", on, r.ios)
  end
  -- the command line's overrides: the phase's fields, which streams that give their own keep
  local ph = suite.apply({ name = "x", bs = "4k", streams = { { qd = 1, ios = 10 }, { bytes = "1m" } } }, { time = "1s", qd = 8 })
  tap.ok(ph.duration == nil and ph.qd == 8 and ph.streams[1].qd == 8 and ph.streams[2].qd == 8,
    "suite.apply: --time leaves a phase whose streams all have quotas; --qd holds for every stream (the command line overrides a stream's own)")
  ph = suite.apply({ name = "x", bs = "4k", streams = { { ios = 10 }, {} } }, { time = "1s" })
  tap.ok(ph.duration == "1s", "suite.apply: --time times a phase with a stream that has no quota")
end

print("1.." .. tap.n)
