-- iomoon.fio.plans: the runner of fio's converted phases. A phase whose
-- jobs asked for more than one measured window (meta.fio, set by
-- fio/options.lua) is run as an iomoon plan here: fio's steady state
-- (steadystate=CRIT:LIMIT over ss_dur) as rounds judged by fio's
-- criterion, fio's latency target (latency_target over latency_window)
-- as a search of the deepest queue under the bound, and the steps around
-- a phase: startdelay, end_fsync, unlink, max_latency, rate_min. Any other phase
-- is iomoon.run as it is.
local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local util = require "iomoon.util"

local plans = {}

-- the figure a steady-state round gives (fio's ss criteria track these)
local TRACK = {
  iops = function(r) return r.iops end,
  bw = function(r) return r.bytes / math.max(r.seconds, 1e-9) end,
  lat = function(r) return r.lat.mean_ns end,
}

--- fio's judgement of a window of samples ys: "range" (every sample
-- within limit of the mean) or "slope" (the least-squares slope per
-- sample under limit), the limit a percentage of the mean when pct.
-- Returns met, the figure judged (deviation or |slope|), the mean.
function plans.judge(ys, judge, limit, pct)
  local n, sum = #ys, 0
  for _, y in ipairs(ys) do sum = sum + y end
  local mean = sum / n
  local figure
  if judge == "range" then
    figure = 0
    for _, y in ipairs(ys) do figure = math.max(figure, math.abs(y - mean)) end
  else
    local xm, sxy, sxx = (n + 1) / 2, 0, 0
    for i, y in ipairs(ys) do sxy = sxy + (i - xm) * (y - mean); sxx = sxx + (i - xm) ^ 2 end
    figure = math.abs(sxx > 0 and sxy / sxx or 0)
  end
  local bound = pct and limit / 100 * math.abs(mean) or limit
  return figure <= bound, figure, mean
end

-- fio's steady state: rounds of interval_s each (the first with ss_ramp
-- as its warm-up), up to the phase's runtime; steady when the last
-- `window` rounds meet the criterion.
local function steady(p, ss)
  local base = util.copy(p)
  base.meta = util.copy(p.meta)
  base.bytes, base.ios = nil, nil
  local runtime = p.duration and iomoon.duration(p.duration) / 1e9 or ss.window * ss.interval_s * 10
  local rounds = math.max(ss.window, math.floor(runtime / ss.interval_s + 0.5))
  local ys, results = {}, {}
  local out = { criterion = ss.criterion, window = ss.window, interval_s = ss.interval_s, steady = false }
  for k = 1, rounds do
    local q = util.copy(base)
    q.name = string.format("%s ss %d", p.name or "steady", k)
    q.duration = ss.interval_s
    q.ramp = k == 1 and ((p.ramp and iomoon.duration(p.ramp) / 1e9 or 0) + ss.ramp_s) or nil
    q.interval = nil
    q.meta.fio_ss = { round = k, of = rounds, criterion = ss.criterion, window = ss.window, interval_s = ss.interval_s }
    local r = iomoon.run(q)
    results[#results + 1] = r
    ys[#ys + 1] = TRACK[ss.track](r)
    if #ys > ss.window then table.remove(ys, 1); table.remove(results, 1) end
    if r.interrupted or r.errors > 0 or r.failed then out.reason = r.interrupted and "interrupted" or "I/O errors"; break end
    if #ys == ss.window then
      local met, figure, mean = plans.judge(ys, ss.judge, ss.limit, ss.pct)
      out.figure, out.mean, out.rounds = figure, mean, k
      if met then out.steady = true; break end
    end
    out.rounds = k
  end
  out.values = ys
  io.stderr:write(string.format("iomoon fio: %s: steadystate=%s %s after %d rounds of %gs: window of %d, mean %s %.6g, %s %.6g\n",
    util.shown(p.name or "job"), ss.criterion, out.steady and "attained" or "not attained", out.rounds or 0, ss.interval_s,
    ss.window, ss.track, out.mean or 0, ss.judge == "range" and "deviation" or "slope", out.figure or 0))
  return results[#results], out
end

-- fio's latency target: the deepest queue (1..iodepth) whose percentile
-- latency over a latency_window probe stays under the bound, by doubling
-- then bisection (plan.find_max's shape, over depth instead of rate);
-- then the job runs at that depth, as fio's does, its result saying what
-- was found (meta.fio_found: qd, bound_us, percentile, window_s, probes).
local function depth_search(p, lt)
  local probes = {}
  local function probe(qd)
    local q = util.copy(p)
    q.meta = util.copy(p.meta)
    q.meta.fio_probe = { qd = qd }
    q.bytes, q.ios, q.ramp = nil, nil, nil
    q.qd = qd
    if q.streams then for _, s in ipairs(q.streams) do s.qd = qd end end
    q.name = string.format("%s @ qd %d", p.name or "latency", qd)
    q.duration = lt.window_s
    local r = iomoon.run(q)
    local lat = lt.percentile >= 100 and r.lat.max_ns or r.lat.hist:percentile(lt.percentile)
    local good = r.errors == 0 and not r.failed and lat <= lt.bound_us * 1000
    probes[#probes + 1] = { qd = qd, ok = good, lat_ns = lat, iops = r.iops }
    if r.interrupted then errors.run("interrupted") end
    return good, r
  end
  local lo, hi, best = 0, nil, nil
  local qd = 1
  while qd <= lt.max_qd do
    local good, r = probe(qd)
    if not good then hi = qd; break end
    lo, best = qd, r
    if qd == lt.max_qd then break end
    qd = math.min(qd * 2, lt.max_qd)
  end
  while hi and hi - lo > 1 do
    local mid = (lo + hi) // 2
    local good, r = probe(mid)
    if good then lo, best = mid, r else hi = mid end
  end
  local out = { qd = lo, bound_us = lt.bound_us, percentile = lt.percentile, window_s = lt.window_s, probes = {} }
  for i, pr in ipairs(probes) do out.probes[i] = { qd = pr.qd, ok = pr.ok, lat_ns = pr.lat_ns, iops = pr.iops } end
  if lo == 0 then
    io.stderr:write(string.format("iomoon fio: %s: latency_target=%dus: not met even at qd 1 (p%g %.0f us); it runs at qd 1\n",
      util.shown(p.name or "job"), lt.bound_us, lt.percentile, probes[1].lat_ns / 1000))
  else
    io.stderr:write(string.format("iomoon fio: %s: latency_target=%dus at p%g: qd %d of %d holds it (%.0f IOPS, %d probes of %gs)\n",
      util.shown(p.name or "job"), lt.bound_us, lt.percentile, lo, lt.max_qd, best.iops, #probes, lt.window_s))
  end
  local q = util.copy(p)
  q.meta = util.copy(p.meta)
  q.meta.fio_found = out
  q.qd = math.max(lo, 1)
  if q.streams then for _, s in ipairs(q.streams) do s.qd = q.qd end end
  return iomoon.run(q), out
end

-- iodepth_mode=stepped: a probe at the job's depth for its IOPS, then a
-- phase per step (options.lua's stepped_of says what each is); each
-- result's meta.fio_step says its step, and stderr a line per step, as
-- fio's report lists each step's IOPS and mean latency.
local function stepped(p, st)
  local function step(name, k, pct, qd, rate)
    local q = util.copy(p)
    q.meta = util.copy(p.meta)
    q.meta.fio_step = { step = k, pct = pct, qd = qd, rate_iops = rate }
    q.bytes, q.ios, q.rate, q.schedule = nil, nil, rate and { iops = rate } or nil, nil
    q.ramp, q.duration, q.qd, q.name = st.ramp_s, st.run_s, qd, name
    local r = iomoon.run(q)
    if r.interrupted then errors.run("interrupted") end
    io.stderr:write(string.format("iomoon fio: %s: iodepth_mode=stepped %s: qd %d%s: %.0f IOPS, mean latency %.1f us\n",
      util.shown(p.name or "job"), k == 0 and "probe" or pct .. " %", qd,
      rate and string.format(", paced at %.0f IOPS", rate) or "", r.iops, r.lat.mean_ns / 1000))
    return r
  end
  local r = step(string.format("%s probe @ qd %d", p.name or "stepped", st.max_qd), 0, 100, st.max_qd)
  local probe_iops, steps = r.iops, {}
  local k = 0
  for pct = st.low, st.high, st.inc do
    k = k + 1
    local qd = math.max(1, st.max_qd * (pct < 100 and 100 or pct) // st.high)
    local rate = pct < 100 and math.max(probe_iops * pct / 100, 1) or nil
    r = step(string.format("%s step %d: %d %%", p.name or "stepped", k, pct), k, pct, qd, rate)
    steps[k] = { pct = pct, qd = qd, rate_iops = rate, iops = r.iops, lat_mean_ns = r.lat.mean_ns }
  end
  return r, { probe_iops = probe_iops, steps = steps }
end

-- fio's strided zones: a phase per zone along the target (size bytes,
-- then skip), each zone read or written once; the last result returned.
local function zones(p, z)
  local path = type(p.target) == "table" and p.target.path or p.target
  local region = type(p.region) == "table" and (p.region.offset or 0) + (p.region.size or 0) or p.region
  local whole = region or (type(p.target) == "table" and p.target.size)
  if not whole then -- the file or device as it is
    local h = iomoon.target { path = path, create = false, fill = false }
    whole = h:size()
    h:close()
  end
  local r
  local k, off = 0, 0
  while off < whole do
    local q = util.copy(p)
    q.meta = util.copy(p.meta)
    q.meta.fio_zone = { zone = k + 1, offset = off }
    local len = math.min(z.size, whole - off)
    q.region = { offset = off, size = len }
    q.bytes = len
    q.name = string.format("%s zone %d @ %d MiB", p.name or "zones", k + 1, off // (1 << 20))
    r = iomoon.run(q)
    if r.interrupted or r.failed then break end
    k, off = k + 1, off + z.size + z.skip
  end
  return r
end

-- fio's rate_min: a measured interval (rate_cycle long) under the rate fails the job
local function check_rate_min(r, rm)
  for _, iv in ipairs(r.intervals or {}) do
    local d = r.write and r.write.ios > 0 and r.read.ios == 0 and "write" or "read"
    local want = rm[d] > 0 and rm[d] or rm.read + rm.write
    local got = rm.kind == "iops" and (iv.iops or 0) or (iv.mb_per_s or 0) * 1e6
    if want > 0 and got < want and iv.len_s >= rm.cycle_s * 0.99 then
      errors.run("%s: rate_min: %.0f %s at %gs, under the %.0f asked (fio fails the job)",
        r.name, got, rm.kind == "iops" and "IOPS" or "bytes/s", iv.t_s, want)
    end
  end
end

-- fio's max_latency and rate_min stop the job while it runs: as phase.stop_if,
-- checked by the phase at each interval's tick (rate_cycle long)
local function stop_if(p, f)
  if not f.max_latency_us and not f.rate_min then return p end
  local q, l = util.copy(p), {}
  if f.max_latency_us then l.latency = f.max_latency_us / 1e6 end
  local rm = f.rate_min
  if rm then
    local unit = rm.kind == "iops" and "_iops" or "_rate"
    if rm.read > 0 then l["read" .. unit] = math.ceil(rm.read) end
    if rm.write > 0 then l["write" .. unit] = math.ceil(rm.write) end
  end
  q.stop_if = l
  return q
end

-- the limit that stopped the phase, said as fio would (fio fails the job: exit 1)
local function stopped(r, f)
  local s = r.stopped
  if s.by == "latency" then
    errors.run("%s: max_latency: an I/O took %.0f us, over the %d us asked; the phase stopped at %gs "
      .. "(fio ends the job with ETIMEDOUT)", r.name, s.value / 1000, f.max_latency_us, s.t_s)
  end
  errors.run("%s: rate_min: %.0f %s at %gs, under the %.0f asked; the phase stopped there (fio fails the job)",
    r.name, s.value, s.by:match("iops") and "IOPS" or "bytes/s", s.t_s, s.limit)
end

-- fsync every file target of a phase (fio's end_fsync)
local function end_fsync(p)
  local function each(t)
    if type(t) == "table" and not t.path then for _, x in ipairs(t) do each(x) end; return end
    local path = type(t) == "table" and t.path or t
    local st = type(path) == "string" and iomoon.stat(path)
    if st and st.kind == "file" then
      local h = iomoon.target { path = path, create = false, fill = false }
      h:fsync()
      h:close()
    end
  end
  each(p.target)
  for _, s in ipairs(p.streams or {}) do each(s.target) end
end

-- delete every regular file a phase ran on that iomoon made (fio's
-- unlink=1); never a device, never a file that was there before iomoon
-- (said on stderr: fio would delete it, iomoon leaves what it did not make)
local function unlink(p)
  local function each(t)
    if type(t) == "table" and not t.path then for _, x in ipairs(t) do each(x) end; return end
    local path = type(t) == "table" and t.path or t
    local st = type(path) == "string" and not util.is_url(path) and iomoon.stat(path)
    if not (st and st.kind == "file") then return end
    local h = iomoon.target { path = path }
    local ours = h:ours()
    h:close()
    if not ours then
      io.stderr:write(string.format("iomoon fio: unlink: left %s (iomoon did not create it)\n", path))
      return
    end
    local ok, err = os.remove(path)
    if not ok then errors.run("unlink: %s", err) end
  end
  each(p.target)
  for _, s in ipairs(p.streams or {}) do each(s.target) end
end

--- Run phase p as fio would (its meta.fio steps); returns the result
-- (the last round's, the best probe's) and, for a plan, what it found.
function plans.run(p)
  local f = p.meta and p.meta.fio
  if plans.exited then -- exit_what=all: fio's exitall ended every job after that phase
    io.stderr:write(string.format("iomoon fio: %s: not run (exitall with exit_what=all ended the run after '%s')\n",
      p.name, plans.exited))
    return nil
  end
  if not f then return iomoon.run(p) end
  if f.whole_target then
    local path = type(p.target) == "table" and p.target.path or p.target
    local h = iomoon.target { path = path }
    p = util.copy(p)
    p.bytes = h:size() * f.whole_target.loops
    h:close()
  end
  if f.startdelay_s then iomoon.sleep(f.startdelay_s) end
  p = stop_if(p, f)
  local r, found
  if f.zones then r = zones(p, f.zones)
  elseif f.steadystate then r, found = steady(p, f.steadystate)
  elseif f.latency_target then r, found = depth_search(p, f.latency_target)
  elseif f.stepped then r, found = stepped(p, f.stepped)
  else r = iomoon.run(p) end
  if f.end_fsync then end_fsync(p) end
  if f.unlink and r and not r.interrupted then unlink(p) end
  if r and r.stopped then stopped(r, f) end
  if r and f.max_latency_us and r.lat.max_ns > f.max_latency_us * 1000 then
    errors.run("%s: max_latency: an I/O took %.0f us, over the %d us asked (fio ends the job with ETIMEDOUT)",
      r.name, r.lat.max_ns / 1000, f.max_latency_us)
  end
  if r and f.rate_min then check_rate_min(r, f.rate_min) end
  if f.exit_all then plans.exited = p.name end
  return r, found
end

return plans
