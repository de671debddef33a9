-- iomoon.pts: the SNIA Solid State Storage Performance Test Specification's
-- tests as plans (doc/suites.md, "SNIA PTS"): purge, workload-independent
-- preconditioning (128 KiB sequential writes of twice the test area), then
-- rounds of the test's matrix, in the specification's order, until the
-- tracking variable is steady by the specification's rule (plan.is_steady:
-- over the last 5 rounds, the range within 20 % of the mean and the
-- excursion of the least-squares line within 10 %), at most 25 rounds.
--
-- Every phase carries meta.pts = { test, round, bs, read, precondition }
-- (the first phase of a test also `plan`: the settings and every departure
-- from the specification), so a saved JSON holds all that the reports
-- (iomoon.report.pts, iomoon.html.pts) and an outside checker need.
-- The ready suites bench-suites/snia-pts-*.lua are pts.suite(NAME).

local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local util = require "iomoon.util"
local plan = require "iomoon.plan"

local input_error = errors.input

local pts = {}

local KiB, MiB = 1024, 1024 * 1024

--- What the specification fixes (doc/suites.md names the source of each).
pts.SPEC = {
  round_s = 60,            -- one minute per cell
  max_rounds = 25,         -- at most 25 rounds
  window = 5,              -- the measurement window: 5 rounds
  range = 0.20,            -- max - min within 20 % of the window's mean
  fit = 0.10,              -- the least-squares line's excursion within 10 % of it
  precondition_bs = 128 * KiB, precondition_passes = 2,
  wsat_passes = 4,         -- WSAT: until 4 x the capacity is written (or 24 h)
  wsat_hours = 24,
}

--- The thread count and queue depth of PTS-E and PTS-C, and the share of
-- the area (the ActiveRange) the test loop addresses.
-- PTS-C's throughput test is 1024 KiB only (PTS-E's is 1024 and 128 KiB).
pts.PROFILES = {
  enterprise = { spec = "PTS-E", workers = 4, qd = 32, active_range_pct = 100 },
  client = { spec = "PTS-C", workers = 2, qd = 16, active_range_pct = 75, without = { ["throughput-128k"] = true } },
}

pts.IOPS_BS = { 1024 * KiB, 128 * KiB, 64 * KiB, 32 * KiB, 16 * KiB, 8 * KiB, 4 * KiB, 512 }
pts.IOPS_MIXES = { 100, 95, 65, 50, 35, 5, 0 }
pts.LATENCY_BS = { 512, 4 * KiB, 8 * KiB }
pts.LATENCY_MIXES = { 100, 65, 0 }
pts.THROUGHPUT_BS = { 1024 * KiB, 128 * KiB }

--- The tests: cells of a round (mix outer, block size inner, as the
-- specification's pseudo code loops), random or sequential, the tracking
-- variable (the cell and the result field), and how it is summed up.
pts.TESTS = {
  iops = { title = "IOPS", mixes = pts.IOPS_MIXES, bs = pts.IOPS_BS, random = 100,
    track = { bs = 4 * KiB, read = 0, field = "iops", label = "4 KiB random 100 % write IOPS" },
    metric = "iops", unit = "IOPS" },
  ["throughput-1m"] = { title = "Throughput 1024 KiB", mixes = { 100, 0 }, bs = { 1024 * KiB }, random = 0,
    track = { bs = 1024 * KiB, read = 0, field = "mb_per_s", label = "1024 KiB sequential write MB/s" },
    metric = "mb_per_s", unit = "MB/s" },
  ["throughput-128k"] = { title = "Throughput 128 KiB", mixes = { 100, 0 }, bs = { 128 * KiB }, random = 0,
    track = { bs = 128 * KiB, read = 0, field = "mb_per_s", label = "128 KiB sequential write MB/s" },
    metric = "mb_per_s", unit = "MB/s" },
  latency = { title = "Latency", mixes = pts.LATENCY_MIXES, bs = pts.LATENCY_BS, random = 100, qd = 1, workers = 1,
    track = { bs = 4 * KiB, read = 0, field = "mean_ns", label = "4 KiB random 100 % write mean response time (ns)" },
    metric = "mean_ns", unit = "ms" },
  wsat = { title = "Write Saturation", mixes = { 0 }, bs = { 4 * KiB }, random = 100, no_precondition = true,
    track = { bs = 4 * KiB, read = 0, field = "iops", label = "4 KiB random write IOPS" },
    metric = "iops", unit = "IOPS" },
}

--- The tests each ready suite runs, in order.
pts.SUITES = {
  iops = { "iops" }, throughput = { "throughput-1m", "throughput-128k" }, latency = { "latency" }, wsat = { "wsat" },
}

--- The tests suite_name runs under settings s (its profile's), in order.
function pts.tests(suite_name, s)
  local without = pts.PROFILES[s.profile].without or {}
  local out = {}
  for _, t in ipairs(pts.SUITES[suite_name]) do
    if not without[t] then out[#out + 1] = t end
  end
  return out
end

--- The value a cell's result gives for `field`: iops, mb_per_s, or the
-- mean response time (lat.mean_ns).
function pts.value(r, field)
  if field == "mean_ns" then return util.finite(util.opt(util.opt(r, "lat"), "mean_ns")) end
  return util.finite(util.opt(r, field))
end

--- A block size as the specification writes it: "0.5 KiB", "4 KiB", "1024 KiB".
function pts.bs_label(bs)
  if bs % KiB ~= 0 then return string.format("%g KiB", bs / KiB) end
  return string.format("%d KiB", bs // KiB)
end

--- A mix as the specification writes it: "65/35" (read/write).
function pts.mix_label(read) return string.format("%g/%g", read, 100 - read) end

--- The suite options of the snia-pts-* suites (the command line's kinds).
pts.OPTIONS = { round = "value", ["max-rounds"] = "value", ["skip-purge"] = "flag", profile = "value",
  interval = "value" }

local function bytes_text(n)
  if n >= 1 << 30 then return string.format("%.1f GiB", n / (1 << 30)) end
  return string.format("%.0f MiB", n / MiB)
end

local function time_text(s)
  if s < 120 then return string.format("%.1f s", s) end
  if s < 7200 then return string.format("%.1f min", s / 60) end
  return string.format("%.1f h", s / 3600)
end

local function seconds_of(v, what)
  local ok, ns = pcall(iomoon.duration, v)
  if not ok or not util.finite(ns) or ns <= 0 then
    input_error("--%s: '%s' is not a duration (as 0.05s, 500ms, 1m)", what, tostring(v))
  end
  return ns / 1e9
end

-- what the target is, to say how it was purged: "device", "file" or nil
-- (a URL, or no target: the null and sim engines)
local function target_kind(opts)
  local t = opts.target
  local path = type(t) == "table" and t.path or t
  if type(path) ~= "string" or util.is_url(path) then return nil end
  local st = iomoon.stat(path)
  if type(st) == "table" then return st.kind == "block" and "device" or st.kind end
  return "file" -- created by the run
end

--- The settings of a PTS run from the suite's options (the command line's
-- strings), checked: every impossible one is an input error here, before
-- anything is written. suite_name: a pts.SUITES key.
function pts.settings(suite_name, opts)
  local o = opts.options or {}
  local s = { suite = suite_name }
  if opts.time then input_error("--time: the snia-pts suites time their cells with --round (seconds per cell)") end
  if opts.ramp then input_error("--ramp: the snia-pts suites measure every cell whole (the specification has no ramp)") end
  local prof = o.profile or "enterprise"
  if not pts.PROFILES[prof] then
    local names = { "enterprise", "client" }
    local near = errors.nearest(prof, names)
    input_error("--profile: '%s' is not a profile (enterprise: PTS-E, client: PTS-C%s)", prof,
      near and "; did you mean " .. near .. "?" or "")
  end
  s.profile = prof
  s.round_s = o.round and seconds_of(o.round, "round") or pts.SPEC.round_s
  if s.round_s < 0.01 then
    input_error("--round: %s is shorter than the shortest interval (10 ms): give 10ms or more", o.round)
  end
  s.interval_s = o.interval and seconds_of(o.interval, "interval") or math.min(1, s.round_s)
  if s.interval_s < 0.01 then input_error("--interval: %s is under 10 ms, the shortest interval", o.interval) end
  if s.interval_s > s.round_s then
    if not o.round then
      input_error("--interval: %s is longer than the round (%g s): a round must hold at least one interval", o.interval,
        s.round_s)
    end
    input_error("--round: %s is shorter than the interval (%g s): a round must hold at least one interval", o.round,
      s.interval_s)
  end
  if suite_name == "latency" and (opts.workers or opts.qd) then
    input_error("--%s: the latency test runs 1 thread at QD 1, as the specification fixes (leave it out)",
      opts.qd and "qd" or "workers")
  end
  local default_max = suite_name == "wsat" and math.ceil(pts.SPEC.wsat_hours * 3600 / s.round_s) or pts.SPEC.max_rounds
  local mr = o["max-rounds"]
  if mr ~= nil then
    local n = math.tointeger(tonumber(mr))
    if not n then input_error("--max-rounds: '%s' is not a whole number", mr) end
    if n < pts.SPEC.window then
      input_error("--max-rounds: %d is under the %d-round measurement window (give %d or more)", n, pts.SPEC.window,
        pts.SPEC.window)
    end
    s.max_rounds = n
  else
    s.max_rounds = default_max
  end
  s.skip_purge = o["skip-purge"] or false
  s.ios = opts.ios -- a smoke test: each cell also ends after this many I/Os
  local p = pts.PROFILES[prof]
  s.workers, s.qd = opts.workers or p.workers, opts.qd or p.qd
  s.active_range_pct = p.active_range_pct
  s.area_bytes = opts.area_bytes
  if not s.area_bytes or s.area_bytes <= 0 then input_error("--size: the test area's size is not known (give --size)") end
  s.direct = opts.direct ~= false
  -- the departures from the specification, each said in the report
  local d = {}
  local function dep(fmt, ...) d[#d + 1] = string.format(fmt, ...) end
  if s.round_s ~= pts.SPEC.round_s then
    dep("--round %g s per cell (the specification: %d s)", s.round_s, pts.SPEC.round_s)
  end
  if s.max_rounds ~= default_max then
    dep("--max-rounds %d (the specification: %s)", s.max_rounds, suite_name == "wsat"
      and string.format("until 4 x the area is written, or %d h", pts.SPEC.wsat_hours) or tostring(default_max))
  end
  if s.skip_purge then dep("--skip-purge: no purge before the test") end
  if s.ios then dep("--ios %d: each cell also ends after %d I/Os (a smoke test; the specification measures whole rounds)",
    s.ios, s.ios) end
  if opts.workers and opts.workers ~= p.workers then
    dep("--workers %d (%s: %d threads)", opts.workers, p.spec, p.workers)
  end
  if opts.qd and opts.qd ~= p.qd then dep("--qd %d (%s: queue depth %d per thread)", opts.qd, p.spec, p.qd) end
  local kind = target_kind(opts)
  if kind == "file" then
    dep("the target is a file of %s: a filesystem lies between iomoon and the device", bytes_text(s.area_bytes))
  elseif type(opts.target) == "table" and opts.target.size then
    dep("--size %s: a part of the device, not its whole user capacity", bytes_text(s.area_bytes))
  end
  if kind == nil then
    dep("the target is not a local device (%s)",
      opts.target and "a network export" or "no target: engine " .. tostring(opts.engine))
  end
  if not s.direct then dep("--buffered: I/O through the page cache (the specification tests the device)") end
  s.departures = d
  return s
end

-- the target (the suite's option table, or a path), unfilled: the purge
-- and the preconditioning write all of it anyway
local function target_of(opts)
  local t = opts.target
  if type(t) == "table" then
    t = util.copy(t)
    if t.fill == nil then t.fill = false end
  end
  return t
end

local function base(s, opts, test, extra)
  local p = { target = target_of(opts), workers = s.workers, qd = s.qd, engine = opts.engine,
    direct = s.direct, interval = string.format("%gs", s.interval_s) }
  if p.target == nil then p.region = opts.region end -- null, sim: a nominal region
  for k, v in pairs(extra) do p[k] = v end
  p.meta = { pts = p.meta_pts }
  p.meta_pts = nil
  p.meta.pts.test = test
  return p
end

--- The purge phase: the whole area discarded (a trim of every block: on a
-- device BLKSECDISCARD when `secure`, else BLKDISCARD; on a file its holes
-- punched), or nil when the target cannot (why: the reason).
function pts.purge_phase(s, opts, test, secure)
  local bs = s.area_bytes % MiB == 0 and MiB or 4096
  local p = base(s, opts, test, { name = string.format("%s: purge", test), bs = bs, read = 0, trim = 100, random = 0,
    ios = s.area_bytes // bs, workers = 1, qd = 16, trim_secure = secure or nil,
    meta_pts = { round = 0, bs = bs, read = 0, precondition = false, purge = true } })
  local ok, e = pcall(iomoon.check, p)
  if not ok then return nil, type(e) == "table" and e.msg or tostring(e) end
  return p
end

--- The preconditioning phases: pass `n` of two, 128 KiB sequential writes
-- over the whole area.
function pts.precondition_phase(s, opts, test, n)
  local passes = pts.SPEC.precondition_passes
  return base(s, opts, test, { name = string.format("%s: precondition pass %d of %d", test, n, passes),
    bs = pts.SPEC.precondition_bs, read = 0, random = 0, bytes = s.area_bytes, workers = 1,
    meta_pts = { round = 0, bs = pts.SPEC.precondition_bs, read = 0, precondition = true, pass = n } })
end

--- The cells of round `round` of `test`, in the specification's order.
function pts.cells(s, opts, test, round)
  local t = pts.TESTS[test]
  local out = {}
  local region = nil
  if s.active_range_pct < 100 then
    local sector = 4096
    region = { offset = 0, size = math.max(sector, s.area_bytes * s.active_range_pct // 100 // sector * sector) }
  end
  for _, read in ipairs(t.mixes) do
    for _, bs in ipairs(t.bs) do
      out[#out + 1] = base(s, opts, test, {
        name = string.format("%s r%d: %s %s %s", test, round, pts.bs_label(bs), t.random == 100 and "RND" or "SEQ",
          pts.mix_label(read)),
        bs = bs, read = read, random = t.random, duration = string.format("%gs", s.round_s), ios = s.ios, region = region,
        workers = t.workers or s.workers, qd = t.qd or s.qd,
        meta_pts = { round = round, bs = bs, read = read, precondition = false } })
    end
  end
  return out
end

local function say(s, fmt, ...)
  if s.quiet then return end
  io.stderr:write("snia-pts-", s.suite, ": ", string.format(fmt, ...), "\n")
end

--- The plan of a test as text: what it will write and for how long, said
-- before anything is written.
function pts.plan_text(s, test)
  local t = pts.TESTS[test]
  local cells = #t.mixes * #t.bs
  local parts = {}
  if not s.skip_purge then parts[#parts + 1] = string.format("purge (discard) %s", bytes_text(s.area_bytes)) end
  if not t.no_precondition then
    parts[#parts + 1] = string.format("precondition: write %s (%d x the %s area, 128 KiB sequential)",
      bytes_text(pts.SPEC.precondition_passes * s.area_bytes), pts.SPEC.precondition_passes, bytes_text(s.area_bytes))
  end
  local lo, hi = math.min(pts.SPEC.window, s.max_rounds), s.max_rounds
  if test == "wsat" then
    parts[#parts + 1] = string.format("then 4 KiB random writes in rounds of %g s until %s is written (4 x the area), "
      .. "steady state or %d rounds (at most %s%s)", s.round_s, bytes_text(pts.SPEC.wsat_passes * s.area_bytes),
      s.max_rounds, time_text(s.max_rounds * s.round_s),
      s.ios and string.format("; each round also ends after %d I/Os", s.ios) or "")
  else
    local rounds = lo == hi and string.format("%d rounds", hi) or string.format("%d to %d rounds", lo, hi)
    local span = lo == hi and time_text(hi * cells * s.round_s)
      or string.format("%s to %s", time_text(lo * cells * s.round_s), time_text(hi * cells * s.round_s))
    parts[#parts + 1] = string.format("then %s of %d cells x %g s (%s of measured time%s)", rounds, cells, s.round_s, span,
      s.ios and string.format(" at most: each cell also ends after %d I/Os", s.ios) or "")
  end
  return table.concat(parts, "; ")
end

--- What is left of a test after its first precondition pass, which ran
-- at mib_per_s: the other passes at that rate, then its rounds (the
-- fewest steady state needs to the most it may take), in one phrase.
function pts.left_text(s, test, mib_per_s)
  local t = pts.TESTS[test]
  local cells = #t.mixes * #t.bs
  local pre = (pts.SPEC.precondition_passes - 1) * s.area_bytes / (mib_per_s * MiB)
  local lo = test == "wsat" and 1 or math.min(pts.SPEC.window, s.max_rounds)
  local lo_s, hi_s = lo * cells * s.round_s, s.max_rounds * cells * s.round_s
  local rounds = lo_s == hi_s and time_text(hi_s) or string.format("%s to %s", time_text(lo_s), time_text(hi_s))
  local total = lo_s == hi_s and time_text(pre + hi_s)
    or string.format("%s to %s", time_text(pre + lo_s), time_text(pre + hi_s))
  return string.format("left of this test: about %s more preconditioning, then %s of rounds (%s in all%s)",
    time_text(pre), rounds, total, s.ios and string.format(" at most: each cell also ends after %d I/Os", s.ios) or "")
end

--- Every phase a suite of these settings may run, checked (iomoon.check:
-- nothing touched) before the first runs.
function pts.check(suite_name, opts)
  local s = pts.settings(suite_name, opts)
  local phases = {}
  for _, test in ipairs(pts.tests(suite_name, s)) do
    for _, p in ipairs(pts.cells(s, opts, test, 1)) do phases[#phases + 1] = p end
    if not pts.TESTS[test].no_precondition then phases[#phases + 1] = pts.precondition_phase(s, opts, test, 1) end
  end
  for _, p in ipairs(phases) do
    local ok, e = pcall(iomoon.check, p)
    if not ok then
      if type(e) == "table" and type(e.msg) == "string" then
        e.msg = e.msg .. string.format(" (snia-pts-%s, phase %s)", suite_name, p.name)
        if e.what then e.what = e.what .. string.format(" (snia-pts-%s, phase %s)", suite_name, p.name) end
      end
      error(e, 0)
    end
  end
  return s
end

-- one iomoon.run; false when the plan must stop (interrupted, errors).
-- The progress line says the test, the round and the cell.
local function run(p, out)
  if out.progress then
    local m = p.meta.pts
    -- the ETA of a round's cell: the rest of the test if it runs to its
    -- last round (steady state may end it sooner), and the label says so
    iomoon.set_progress(true, m.round == 0 and "" or string.format("round %d of at most %d, cell %d/%d", m.round,
      out.max_rounds, out.cell, out.cells), m.round == 0 and 0 or out.left_s)
  end
  local r = iomoon.run(p)
  out.phases = out.phases + 1
  if r.interrupted or iomoon.interrupted() then out.stopped = "interrupted"; return r, false end
  if r.failed or (r.errors or 0) > 0 then
    out.stopped = string.format("%s: %s", p.name, r.failed and "failed" or string.format("%d errors", r.errors))
    return r, false
  end
  return r, true
end

-- the plan's settings as meta.pts.plan (a plain table: into the JSON)
local function plan_meta(s, test, purge)
  local t = pts.TESTS[test]
  return { suite = "snia-pts-" .. s.suite, profile = s.profile, spec = pts.PROFILES[s.profile].spec,
    workers = t.workers or s.workers, qd = t.qd or s.qd, round_s = s.round_s, interval_s = s.interval_s,
    max_rounds = s.max_rounds, window = pts.SPEC.window, area_bytes = s.area_bytes,
    active_range_pct = s.active_range_pct, purge = purge, departures = s.departures,
    track = t.track, direct = s.direct }
end

-- how each kind of target is purged, and the departure it is
local PURGE = {
  secure = { text = "BLKSECDISCARD (secure discard) of the whole area",
    departure = "purge by BLKSECDISCARD, the block layer's secure erase of the area, not the device's own "
      .. "purge command (ATA SECURITY ERASE, NVMe Format/Sanitize)" },
  device = { text = "BLKDISCARD of the whole area",
    departure = "purge by BLKDISCARD, not a secure erase (ATA SECURITY ERASE, NVMe Format/Sanitize)" },
  file = { text = "holes punched over the whole area (a file: fallocate PUNCH_HOLE)",
    departure = "purge of a file: its holes punched (a file cannot be erased as a device is)" },
  other = { text = "a trim of the whole area (the engine's: NBD trim, SCSI UNMAP; none on null and sim)",
    departure = "purge by a trim, not a secure erase" },
}

--- Run one test: purge, precondition, rounds until steady. Returns
-- { steady, rounds, values, window = {first, last}, stopped }.
function pts.run_test(s, opts, test)
  local t = pts.TESTS[test]
  local out = { phases = 0, values = {}, progress = not s.quiet and s.progress, max_rounds = s.max_rounds,
    cells = #t.mixes * #t.bs, cell = 0 }
  say(s, "%s: %s", test, pts.plan_text(s, test))
  -- the purge
  local purge_how
  local first_meta = true
  local function mark(p)
    if first_meta then
      local d = {}
      for i, v in ipairs(s.departures) do d[i] = v end
      if purge_how.departure then d[#d + 1] = purge_how.departure end
      p.meta.pts.plan = plan_meta(s, test, purge_how.text)
      p.meta.pts.plan.departures = d
      first_meta = false
    end
    return p
  end
  if s.skip_purge then
    purge_how = { text = "skipped (--skip-purge)" }
  else
    local kind = target_kind(opts)
    -- a device: its secure discard where it has one, else BLKDISCARD, and
    -- the report says why not the secure one
    local p, why = nil, nil
    if kind == "device" then p, why = pts.purge_phase(s, opts, test, true) end
    local insecure = kind == "device" and not p and why
    if p then kind = "secure" else p, why = pts.purge_phase(s, opts, test) end
    if p then
      purge_how = util.copy(PURGE[kind] or PURGE.other)
      if insecure then
        purge_how.text = string.format("%s (%s)", purge_how.text, (tostring(insecure):gsub("^[%w_.]+trim_secure: ", "")))
      end
      local _, go = run(mark(p), out)
      if not go then return out end
    else
      purge_how = { text = "not possible: " .. tostring(why),
        departure = "no purge: the target cannot discard (" .. tostring(why) .. ")" }
      say(s, "%s: no purge: %s", test, tostring(why))
    end
  end
  -- workload-independent preconditioning
  if not t.no_precondition then
    for n = 1, pts.SPEC.precondition_passes do
      local r, go = run(mark(pts.precondition_phase(s, opts, test, n)), out)
      if not go then return out end
      if n == 1 and (r.mib_per_s or 0) > 0 then
        say(s, "%s: precondition pass 1 of %d wrote %s at %.0f MiB/s; %s", test, pts.SPEC.precondition_passes,
          bytes_text(s.area_bytes), r.mib_per_s, pts.left_text(s, test, r.mib_per_s))
      end
    end
  end
  -- rounds until steady
  local written, wsat_limit = 0, pts.SPEC.wsat_passes * s.area_bytes
  for round = 1, s.max_rounds do
    local value
    for i, p in ipairs(pts.cells(s, opts, test, round)) do
      -- the rest of this round, and the rounds after it up to the last
      out.cell, out.left_s = i, ((out.cells - i) + (s.max_rounds - round) * out.cells) * s.round_s
      local r, go = run(mark(p), out)
      if not go then return out end
      local m = p.meta.pts
      if m.bs == t.track.bs and m.read == t.track.read then value = pts.value(r, t.track.field) end
      written = written + (util.opt(util.opt(r, "write"), "bytes") or 0)
    end
    out.values[round], out.rounds = value or 0, round
    local steady = plan.is_steady(out.values, { window = pts.SPEC.window, excursion = pts.SPEC.range,
      slope = pts.SPEC.fit })
    if steady then
      out.steady = true
      break
    end
    if test == "wsat" and written >= wsat_limit then out.written_limit = true; break end
  end
  out.steady = out.steady or false
  if out.rounds then
    local w = math.min(pts.SPEC.window, out.rounds)
    out.window = { out.rounds - w + 1, out.rounds }
    say(s, "%s: %s after %d rounds (measurement window: rounds %d to %d)", test,
      out.steady and "steady state" or out.written_limit and "4 x the area written, no steady state"
        or "no steady state", out.rounds, out.window[1], out.window[2])
  end
  return out
end

--- Run the tests of a suite (pts.tests) with checked settings s.
function pts.run(suite_name, opts, s)
  s = s or pts.check(suite_name, opts)
  s.quiet, s.progress = opts.quiet, opts.progress ~= false
  local outs = {}
  for _, test in ipairs(pts.tests(suite_name, s)) do
    local o = pts.run_test(s, opts, test)
    outs[#outs + 1] = o
    if o.stopped then break end
  end
  iomoon.set_progress(false)
  return outs
end

--- The ready suite snia-pts-NAME: its table for iomoon.suite.
function pts.suite(name)
  local tests = pts.SUITES[name]
  assert(tests, name)
  local titles = {}
  for i, t in ipairs(tests) do titles[i] = pts.TESTS[t].title end
  local settings
  return {
    name = "snia-pts-" .. name,
    description = name == "wsat" and "SNIA PTS write saturation: purge, 4 KiB random writes to 4 x the area"
      or string.format("SNIA PTS %s test: purge, precondition, rounds until steady state",
        name == "throughput" and "throughput (1024 and 128 KiB)" or titles[1]),
    source = "SNIA Solid State Storage Performance Test Specification (PTS-E 1.1, PTS-C 1.2): doc/suites.md",
    size = "1g",
    options = pts.OPTIONS,
    check = function(opts) settings = pts.check(name, opts) end,
    run = function(opts) return pts.run(name, opts, settings) end,
  }
end

return pts
