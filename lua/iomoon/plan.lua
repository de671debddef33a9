-- iomoon.plan: multi-phase plans for burn-in and qualification, and two
-- ready building blocks: find_max (the highest rate whose latency
-- percentile stays under a bound) and until_steady (SNIA PTS steady state).
--
--   local plan = require "iomoon.plan"
--   local p = plan.new { name = "qualify", after = function(step, r) print(step.name, r.iops) end }
--   p:step { name = "precondition", phase = { target = t, bs = "128k", read = 0, bytes = t:size() } }
--   p:step { name = "soak", times = 3, phase = { target = t, bs = "4k", random = 100, read = 0, duration = "10m" },
--            fail_when = function(r) return r.lat.p99_ns > 5e6 end }
--   p:step { name = "settle", phase = ..., until_ok = function(r, ctx) return r.iops > 1000 end, max = 10 }
--   local ctx = p:run()      -- ctx.results["soak"] is the list of that step's results
--
-- A step's phase may be a function(ctx) returning the phase, so it can
-- depend on what came before.

local iomoon = require "iomoon"

local plan = {}

local errors = require "iomoon.errors"
local util = require "iomoon.util"
local input_error = errors.input

local Plan = {}
Plan.__index = Plan

--- A new plan. t: name, before(step, ctx), after(step, result, ctx),
-- on_error = "stop" (default) | "continue": whether a phase with I/O
-- errors ends the plan.
function plan.new(t)
  t = errors.check_fields(t or {}, "plan.new",
    { name = "string", before = "function", after = "function", on_error = "string" })
  if t.on_error ~= nil and t.on_error ~= "stop" and t.on_error ~= "continue" then
    input_error("plan.new.on_error: '%s' is not allowed (\"stop\" or \"continue\")", t.on_error)
  end
  return setmetatable({ name = t.name or "plan", before = t.before, after = t.after,
    on_error = t.on_error or "stop", steps = {} }, Plan)
end

--- Add a step. t: name (required, unique), phase (a table or function(ctx)),
-- times (repeat N times), until_ok(result, ctx) (repeat until true, at most
-- `max` times), fail_when(result, ctx) (stop the plan when true).
function Plan:step(t)
  if type(t) ~= "table" or type(t.name) ~= "string" then input_error("plan step: give a table with a name") end
  errors.check_fields(t, string.format("plan step '%s'", t.name), { name = "string", phase = { "table", "function" },
    times = "number", max = "number", until_ok = "function", fail_when = "function" })
  if t.max ~= nil and (math.type(t.max) ~= "integer" or t.max < 1) then
    input_error("plan step '%s': max = %s is not a count >= 1", t.name, tostring(t.max))
  end
  if t.times ~= nil and t.until_ok then
    input_error("plan step '%s': times and until_ok both given (times repeats a fixed count; until_ok repeats until true, at most max)", t.name)
  end
  if t.max ~= nil and not t.until_ok then
    input_error("plan step '%s': max without until_ok (max bounds the rounds of until_ok; use times to repeat)", t.name)
  end
  for _, s in ipairs(self.steps) do
    if s.name == t.name then input_error("plan step '%s': the name is used twice", t.name) end
  end
  if type(t.phase) ~= "table" and type(t.phase) ~= "function" then
    input_error("plan step '%s': phase must be a phase table or a function(ctx)", t.name)
  end
  if t.times ~= nil and (math.type(t.times) ~= "integer" or t.times < 1) then
    input_error("plan step '%s': times = %s is not a count >= 1", t.name, tostring(t.times))
  end
  self.steps[#self.steps + 1] = t
  return self
end

-- Call a user condition; an error in it stops the plan, naming the step.
local function check(step, what, fn, ...)
  local ok, v = pcall(fn, ...)
  if not ok then input_error("plan step '%s': %s failed: %s", step.name, what, tostring(v)) end
  return v
end

--- Run the steps in order. Returns ctx: results (by step name, lists),
-- all (every result in order), stopped (nil, or why the plan stopped) and
-- last (the last result).
function Plan:run()
  local ctx = { plan = self, results = {}, all = {} }
  for _, step in ipairs(self.steps) do
    ctx.results[step.name] = {}
    local max = step.times or step.max or (step.until_ok and 100) or 1
    for round = 1, max do
      ctx.round = round
      if self.before then check(step, "before hook", self.before, step, ctx) end
      local phase = step.phase
      if type(phase) == "function" then phase = check(step, "phase function", phase, ctx) end
      phase = phase or {}
      local p = util.copy(phase)
      p.name = p.name or (max > 1 and string.format("%s #%d", step.name, round) or step.name)
      local r = iomoon.run(p)
      table.insert(ctx.results[step.name], r)
      table.insert(ctx.all, r)
      ctx.last = r
      if self.after then check(step, "after hook", self.after, step, r, ctx) end
      if r.interrupted then
        ctx.stopped = string.format("step '%s' was interrupted", step.name)
      elseif r.failed or (r.errors > 0 and self.on_error == "stop") then
        ctx.stopped = string.format("step '%s' had %d errors", step.name, r.errors)
      elseif step.fail_when and check(step, "fail_when", step.fail_when, r, ctx) then
        ctx.stopped = string.format("step '%s' met its fail_when condition", step.name)
      end
      if ctx.stopped then return ctx end
      if step.until_ok and check(step, "until_ok", step.until_ok, r, ctx) then break end
      if step.until_ok and round == max then
        ctx.stopped = string.format("step '%s' did not meet until_ok in %d rounds", step.name, max)
        return ctx
      end
    end
  end
  return ctx
end

-- A percentile of a result, in ns: p99 -> lat.p99_ns, else from the histogram.
local function percentile_ns(r, pct)
  local known = { [50] = "p50_ns", [90] = "p90_ns", [99] = "p99_ns", [99.9] = "p999_ns", [99.99] = "p9999_ns" }
  if known[pct] then return r.lat[known[pct]] end
  return r.lat.hist:percentile(pct)
end

-- Does latency trend upward across a probe's intervals (a backlog that
-- grows)? Compares the mean interval p50 of the last third with the first
-- third: more than 25 % higher is a trend. Needs six intervals.
local function latency_grows(r)
  local iv = r.intervals or {}
  local n = #iv
  if n < 6 then return false end
  local k = n // 3
  local first, last = 0, 0
  for i = 1, k do first = first + iv[i].p50_ns end
  for i = n - k + 1, n do last = last + iv[i].p50_ns end
  return last > 1.25 * first
end

-- Is a paced result's shortfall no more than the I/Os still in flight when
-- it ended (at most one service time's worth, and at least one)? Those do
-- not count, so a short probe of a slow device falls short by them.
local function short_by_inflight(r, asked)
  local svc = rawget(r, "svc")
  local inflight = math.max(1, asked * (svc and svc.p50_ns or r.lat.p50_ns) / 1e9)
  return (asked - r.iops) * r.seconds <= inflight + 1
end

--- The highest rate (IOPS) the device sustains with its `percentile`
-- latency at or under `bound`. Doubles the rate from `from` until a probe
-- fails, then bisects between the last good and the first bad rate until
-- they are within `tolerance` (a fraction, default 0.05). A probe is good
-- when it had no errors, the latency bound held, the achieved rate is
-- within 1 % of the rate asked (or short of it by no more than the I/Os in
-- flight at its end), and latency did not grow across the
-- probe's intervals (a backlog building up: each probe is sampled in ten
-- intervals). t: phase (the base phase; rate is set per probe), bound (a
-- duration), percentile (default 99), from (default 100 IOPS), max
-- (default 10^7), tolerance, arrival, confirm (a rate is bad only when this
-- many probes of it in a row fail, default 2). Returns {iops=, asked_iops=,
-- result=, probes={ {iops=, ok=, why=, lat_ns=, achieved_iops=}, ... }}:
-- iops is the achieved rate of the best good probe (never more than the
-- device did), asked_iops the rate it was asked; both nil when even `from`
-- fails, and then `why` says so ("even from = 1000 IOPS failed (latency
-- over the bound): try a lower from"). A probe that measured no I/O is a
-- failed probe ("no I/O measured"), never a rate under the bound.
function plan.find_max(t)
  errors.check_fields(t, "find_max", { phase = "table", bound = { "string", "number" }, percentile = "number",
    from = "number", max = "number", tolerance = "number", arrival = "string", confirm = "number" })
  if type(t.phase) ~= "table" then input_error("find_max.phase: give the base phase") end
  if rawget(t.phase, "rate") ~= nil or rawget(t.phase, "schedule") ~= nil then
    input_error("find_max.phase: has its own rate or schedule; find_max sets the rate of each probe (leave them out)")
  end
  if t.bound == nil then input_error("find_max.bound: give a latency bound, e.g. \"2ms\"") end
  local bound = iomoon.duration(t.bound)
  local pct = t.percentile or 99
  if not (pct > 0 and pct < 100) then input_error("find_max.percentile: %s is not a percentile (above 0, below 100)", pct) end
  local lo_rate, hi_rate = nil, nil
  local rate = t.from or 100
  local max = t.max or 1e7
  local tol = t.tolerance or 0.05
  if not (rate > 0) then input_error("find_max.from: %s is not a rate (IOPS above 0)", rate) end
  if not (max >= rate) then input_error("find_max.max: %s is below from (%s)", max, rate) end
  if not (tol > 0 and tol < 1) then input_error("find_max.tolerance: %s is not a fraction (above 0, below 1)", tol) end
  local out = { probes = {} }
  local confirm = t.confirm or 2
  if math.type(confirm) ~= "integer" or confirm < 1 then
    input_error("find_max.confirm: %s is not a count >= 1", tostring(confirm))
  end
  local function probe_once(iops, attempt)
    local p = util.copy(t.phase)
    p.rate = { iops = iops, arrival = t.arrival or "fixed" }
    -- a confirming probe draws new arrivals and offsets, not the same ones again
    p.seed = (t.phase.seed or 1) + attempt - 1
    p.name = string.format("%s @ %.0f IOPS", t.phase.name or "find_max", iops)
    if p.interval == nil and p.duration then
      p.interval = math.max(0.01, iomoon.duration(p.duration) / 1e9 / 10)
    end
    iomoon.check(p)
    local r = iomoon.run(p)
    local lat = percentile_ns(r, pct)
    local why
    if rawget(r, "ios") == 0 and r.errors == 0 then why = "no I/O measured" -- a latency of 0 is no figure under the bound
    elseif r.errors > 0 or r.failed then why = "errors"
    elseif lat > bound then why = "latency over the bound"
    elseif r.iops < 0.99 * iops and not short_by_inflight(r, iops) then why = "achieved under 99 % of the rate"
    elseif latency_grows(r) then why = "latency grows (a backlog)" end
    table.insert(out.probes, { iops = iops, ok = not why, why = why, lat_ns = lat, achieved_iops = r.iops, result = r })
    if iomoon.interrupted() then errors.run("interrupted") end
    return not why, r
  end
  -- a rate fails only when `confirm` probes of it in a row fail: one stall
  -- of the host (a busy hypervisor) must not end the search low
  local function probe(iops)
    local good, r
    for attempt = 1, confirm do
      good, r = probe_once(iops, attempt)
      if good then break end
    end
    return good, r
  end
  while rate <= max do
    local good, r = probe(rate)
    if not good then hi_rate = rate; break end
    lo_rate, out.result = rate, r
    rate = rate * 2
  end
  if not lo_rate then
    local first = out.probes[1]
    local advice = { errors = "see the probe's errors", ["no I/O measured"] = "give the phase a longer duration" }
    out.why = first and string.format("even from = %.0f IOPS failed (%s): %s", first.iops, first.why,
      advice[first.why] or "try a lower from") or "no probe ran"
    return out
  end
  hi_rate = hi_rate or max
  while (hi_rate - lo_rate) / lo_rate > tol do
    local mid = (lo_rate + hi_rate) / 2
    local good, r = probe(mid)
    if good then lo_rate, out.result = mid, r else hi_rate = mid end
  end
  out.asked_iops = lo_rate
  out.iops = math.min(out.result.iops, lo_rate)
  return out
end

--- SNIA PTS steady state of a series (the last `window` values, default 5):
-- the range of the values is at most `excursion` (default 0.20) of their
-- mean, and the range of their least-squares line over the window is at
-- most `slope` (default 0.10) of the mean. Returns steady, and a table of
-- the figures (mean, range, fit_range, slope_per_round).
function plan.is_steady(values, t)
  t = errors.check_fields(t or {}, "is_steady", { window = "number", excursion = "number", slope = "number" })
  if t.window ~= nil and (math.type(t.window) ~= "integer" or t.window < 2) then
    input_error("is_steady.window: %s is not a count >= 2", tostring(t.window))
  end
  if type(values) ~= "table" then input_error("is_steady: give a list of values") end
  local w = t.window or 5
  if #values < w then return false, { reason = string.format("%d of %d rounds", #values, w) } end
  local ys, sum = {}, 0
  for i = #values - w + 1, #values do ys[#ys + 1] = values[i]; sum = sum + values[i] end
  local mean = sum / w
  local lo, hi = math.huge, -math.huge
  for _, y in ipairs(ys) do lo = math.min(lo, y); hi = math.max(hi, y) end
  -- least squares: x = 1..w
  local xm, sxy, sxx = (w + 1) / 2, 0, 0
  for i, y in ipairs(ys) do sxy = sxy + (i - xm) * (y - mean); sxx = sxx + (i - xm) ^ 2 end
  local slope = sxx > 0 and sxy / sxx or 0
  local fit_range = math.abs(slope) * (w - 1)
  local f = { mean = mean, range = hi - lo, fit_range = fit_range, slope_per_round = slope }
  local exc, slp = t.excursion or 0.20, t.slope or 0.10
  local steady = mean ~= 0 and (hi - lo) <= exc * math.abs(mean) and fit_range <= slp * math.abs(mean)
  return steady, f
end

--- Run rounds of a phase until the tracked figure is steady (SNIA PTS), at
-- most max_rounds (default 25). t: phase, track (a result field such as
-- "iops", or a function(result) -> number), window, excursion, slope.
-- Returns {steady=, rounds=, results=, values=, figures=}; when the limit is
-- reached without steady state, steady = false and `reason` says so.
function plan.until_steady(t)
  errors.check_fields(t, "until_steady", { phase = "table", track = { "string", "function" }, window = "number",
    excursion = "number", slope = "number", max_rounds = "number" })
  if type(t.phase) ~= "table" then input_error("until_steady.phase: give the phase of one round") end
  local w, mr = t.window or 5, t.max_rounds or 25
  if math.type(mr) ~= "integer" or mr < 1 then input_error("until_steady.max_rounds: %s is not a count >= 1", tostring(mr)) end
  if math.type(w) ~= "integer" or w < 2 then input_error("until_steady.window: %s is not a count >= 2", tostring(w)) end
  if w > mr then input_error("until_steady.window: %d rounds can never fit in max_rounds = %d", w, mr) end
  local track = t.track or "iops"
  local get = type(track) == "function" and track or function(r) return rawget(r, track) end
  local max = t.max_rounds or 25
  local out = { results = {}, values = {} }
  for round = 1, max do
    local p = util.copy(t.phase)
    p.name = string.format("%s round %d", t.phase.name or "steady", round)
    local r = iomoon.run(p)
    out.results[round] = r
    out.values[round] = get(r)
    if type(out.values[round]) ~= "number" then
      local names = {}
      for k, v in pairs(r) do if type(v) == "number" then names[#names + 1] = k end end
      table.sort(names)
      input_error("until_steady.track: '%s' is not a number in the result%s", tostring(track),
        type(track) == "string" and errors.suggest(track, names) or "")
    end
    out.rounds = round
    if r.interrupted or r.errors > 0 then
      out.steady, out.reason = false, r.interrupted and "interrupted" or "I/O errors"
      return out
    end
    local steady, f = plan.is_steady(out.values, { window = t.window, excursion = t.excursion, slope = t.slope })
    out.figures = f
    if steady then out.steady = true; return out end
  end
  out.steady = false
  out.reason = string.format("no steady state within %d rounds", max)
  return out
end

return plan
