-- iomoon.think: think-time and arrival patterns, composed in Lua and handed
-- to the core as native phase fields (think, rate, schedule). None of them
-- runs per I/O: a curve becomes a list of schedule segments.
--
-- Every function returns a phase fragment; merge it into a phase with
-- think.apply(phase, fragment) or by hand. A fragment paces a stream the
-- same way (think.apply(stream, fragment), an entry of phase.streams): its
-- rate is the stream's own.

local iomoon = require "iomoon"

local think = {}

local errors = require "iomoon.errors"
local util = require "iomoon.util"
local input_error = errors.input

local function seconds(d, what)
  local ok, ns = pcall(iomoon.duration, d)
  if not ok then input_error("%s: %s", what, tostring(ns):gsub("^duration: ", "")) end
  return ns / 1e9
end

local function positive(x, what)
  if type(x) ~= "number" or x < 0 then input_error("%s: %s is not a rate (a number of IOPS >= 0)", what, tostring(x)) end
  return x
end

--- Merge fragments into a copy of phase (or of a stream). A fragment's
-- fields replace the phase's, except `name`: a phase that has a name keeps
-- it (a preset's name only names a phase that has none).
function think.apply(phase, ...)
  if type(phase) ~= "table" then input_error("think.apply: a %s is not a phase or stream table", type(phase)) end
  local p = util.copy(phase)
  for i, frag in ipairs { ... } do
    if type(frag) ~= "table" then input_error("think.apply: fragment %d is a %s, not a table", i, type(frag)) end
    for k, v in pairs(frag) do
      if k ~= "name" or p.name == nil then p[k] = v end
    end
  end
  return p
end

--- Closed loop, a fixed wait after every completion of a slot.
function think.constant(d) return { think = { fixed = d } } end
--- A uniform wait between lo and hi.
function think.uniform(lo, hi) return { think = { uniform = { lo, hi } } } end
--- An exponential wait with this mean.
function think.exponential(mean) return { think = { exponential = mean } } end
--- IOMeter's burst: n I/Os, wait for them, then idle `delay`.
function think.burst(n, delay) return { think = { burst = n, delay = delay } } end

--- Open loop at a fixed rate, evenly spaced.
function think.rate(iops) return { rate = { iops = positive(iops, "think.rate"), arrival = "fixed" } } end
--- Open loop with poisson arrivals (exponential gaps) at this mean rate.
function think.poisson(iops) return { rate = { iops = positive(iops, "think.poisson"), arrival = "poisson" } } end

-- {duration=, iops=} segments, each from a list of {seconds, iops}
local function schedule(steps, arrival)
  local s = {}
  for i, st in ipairs(steps) do
    s[i] = { duration = st[1], iops = st[2], arrival = arrival }
  end
  return { schedule = s }
end

--- Steps: think.step{ {"10s", 1000}, {"10s", 5000} }.
function think.step(steps, arrival)
  for i, st in ipairs(steps) do
    seconds(st[1], string.format("think.step[%d] duration", i))
    positive(st[2], string.format("think.step[%d] iops", i))
  end
  return schedule(steps, arrival)
end

--- On/off: `iops` for `on`, idle for `off`, repeated over `duration`.
function think.on_off(t)
  errors.check_fields(t, "think.on_off", { on = "any", off = "any", duration = "any", iops = "number", arrival = "string" })
  local on, off = seconds(t.on, "think.on_off.on"), seconds(t.off, "think.on_off.off")
  local total = seconds(t.duration, "think.on_off.duration")
  positive(t.iops, "think.on_off.iops")
  if on + off <= 0 then input_error("think.on_off: on + off must be above zero") end
  local steps, at = {}, 0
  while at < total - 1e-9 do
    local a = math.min(on, total - at)
    steps[#steps + 1] = { a, t.iops }
    at = at + a
    if at < total - 1e-9 and off > 0 then
      local b = math.min(off, total - at)
      steps[#steps + 1] = { b, 0 }
      at = at + b
    end
  end
  return schedule(steps, t.arrival)
end

--- A linear ramp of the rate from `from` to `to` IOPS in `steps` equal steps
-- over `duration`.
function think.ramp(t)
  errors.check_fields(t, "think.ramp", { duration = "any", steps = "number", from = "number", to = "number", arrival = "string" })
  local total = seconds(t.duration, "think.ramp.duration")
  local n = t.steps or 10
  if math.type(n) ~= "integer" or n < 1 then input_error("think.ramp.steps: %s is not a count >= 1", tostring(n)) end
  positive(t.from, "think.ramp.from")
  positive(t.to, "think.ramp.to")
  local steps = {}
  for i = 0, n - 1 do
    local iops = n == 1 and t.from or t.from + (t.to - t.from) * i / (n - 1)
    steps[#steps + 1] = { total / n, iops }
  end
  return schedule(steps, t.arrival)
end

--- A diurnal curve: the rate follows a cosine from `trough` (at the start)
-- up to `peak` (half a period later) and back, sampled in `steps` segments
-- per period, for `duration` (default one period).
function think.diurnal(t)
  errors.check_fields(t, "think.diurnal", { period = "any", duration = "any", steps = "number", peak = "number",
    trough = "number", arrival = "string" })
  local period = seconds(t.period or "24h", "think.diurnal.period")
  local total = t.duration and seconds(t.duration, "think.diurnal.duration") or period
  local n = t.steps or 24
  positive(t.peak, "think.diurnal.peak")
  positive(t.trough, "think.diurnal.trough")
  local seg = period / n
  local steps, at = {}, 0
  while at < total - 1e-9 do
    local mid = at + math.min(seg, total - at) / 2
    local phase = 2 * math.pi * mid / period
    local iops = t.trough + (t.peak - t.trough) * (1 - math.cos(phase)) / 2
    steps[#steps + 1] = { math.min(seg, total - at), iops }
    at = at + seg
  end
  return schedule(steps, t.arrival)
end

--- A rate profile from a CSV file with a header: one row per segment, a
-- `seconds` column (the segment's length) and an `iops` column (names may
-- be changed with t.seconds_col and t.iops_col).
function think.from_csv(path, t)
  t = errors.check_fields(t or {}, "think.from_csv", { seconds_col = "string", iops_col = "string", arrival = "string" })
  local rows = iomoon.csv.read(path)
  local scol, icol = t.seconds_col or "seconds", t.iops_col or "iops"
  local header = rows[1] or {}
  local si, ii
  for i, h in ipairs(header) do
    if h == scol then si = i end
    if h == icol then ii = i end
  end
  if not si or not ii then
    input_error("think.from_csv: %s needs columns '%s' and '%s' in its header (found: %s)", path, scol, icol,
      table.concat(header, ", "))
  end
  local steps = {}
  for r = 2, #rows do
    local s, i = tonumber(rows[r][si]), tonumber(rows[r][ii])
    if not s or s <= 0 or not i or i < 0 then
      input_error("think.from_csv: %s row %d: '%s' seconds and '%s' IOPS are not a segment", path, r,
        tostring(rows[r][si]), tostring(rows[r][ii]))
    end
    steps[#steps + 1] = { s, i }
  end
  if #steps == 0 then input_error("think.from_csv: %s has no rows under its header", path) end
  return schedule(steps, t.arrival)
end

return think
