-- iomoon.trace: recorded traffic. load, save and profile come from the
-- core (iomoon.trace, src/lua_trace*.c); this module adds what is decided
-- in Lua: to_phase (a profile -> a synthetic phase that iomoon.run takes,
-- scaled as asked) and print_profile (a profile as text, units on every
-- number: `iomoon trace profile TRACE`). doc/replay.md, "From a trace to a
-- workload", lists a profile's fields and what to_phase builds.
local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local util = require "iomoon.util"

local M = {}
for k, v in pairs(iomoon.trace) do M[k] = v end

local OPS = { "read", "write", "trim" }

-- A list of {size, weight %} from a profile's sizes (the sizes listed, their
-- shares scaled up to 100 over the "other" share left out), or one plain
-- size. Weights sum to 100 exactly: the last takes what the others leave.
local function bs_list(sizes)
  local list, sum = {}, 0
  for _, s in ipairs(sizes or {}) do
    if s.bytes > 0 and s.pct > 0 then
      list[#list + 1] = { s.bytes, s.pct }
      sum = sum + s.pct
    end
  end
  if #list == 0 then return nil end
  if #list == 1 then return list[1][1] end
  local given = 0
  for i, e in ipairs(list) do
    if i < #list then
      e[2] = e[2] * 100 / sum
      given = given + e[2]
    else
      e[2] = 100 - given
    end
  end
  return list
end

-- Shares that sum to 100 exactly (the last takes what the others leave).
local function weights(values)
  local sum, out, given, last = 0, {}, 0, 0
  for i, v in ipairs(values) do
    sum = sum + v
    if v > 0 then last = i end
  end
  for i, v in ipairs(values) do
    out[i] = i == last and 0 or v * 100 / sum
    given = given + out[i]
  end
  out[last] = 100 - given
  return out
end

-- The access specs: one per data op the trace has (reads, writes, trims),
-- each with that op's sizes and sequential share, weighted by its count.
local function mix_of(p)
  local specs, counts = {}, {}
  for _, op in ipairs(OPS) do
    local n = p[op .. "s"] or 0
    local bs = bs_list(p[op .. "_bs"])
    if n > 0 and bs then
      local s = { bs = bs, read = op == "read" and 100 or 0, random = 100 - (p[op .. "_seq_pct"] or 0) }
      if op == "trim" then s.trim = 100 end
      s.random = math.max(0, math.min(100, s.random))
      specs[#specs + 1] = s
      counts[#counts + 1] = n
    end
  end
  if #specs == 0 then
    errors.input("to_phase: the profile has no reads, writes or trims to build a phase of")
  end
  if #specs > 1 then
    for i, w in ipairs(weights(counts)) do specs[i].weight = w end
  end
  return specs
end

local function seconds(d, field)
  if type(d) == "number" then return d end
  local ok, ns = pcall(iomoon.duration, d)
  if not ok then errors.input("%s: '%s' is not a duration (e.g. \"10s\", 2.5)", field, tostring(d)) end
  return ns / 1e9
end

-- iomoon has fixed and poisson arrivals; a bursty trace's gaps are nearest
-- to poisson's (the schedule carries the bursts it can: I/Os over time).
local function arrival_of(p)
  return p.arrival == "fixed" and "fixed" or "poisson"
end

-- rate or schedule, and duration, from the profile's I/Os over time.
local function pacing(ph, p, o)
  -- the rate paces reads, writes and trims; syncs come on top (fsync = N)
  local scale = (o.scale or 1) * ((p.n or 0) > 0 and (p.n - (p.syncs or 0)) / p.n or 1)
  local span = p.span_s or 0
  local dur = o.duration and seconds(o.duration, "to_phase.duration") or span
  local series = p.iops_over_time or {}
  if not (p.iops and p.iops > 0 and span > 0) then
    ph.ios = math.max(1, math.floor((p.n or 1) * scale + 0.5)) -- one instant: as fast as it goes
    return
  end
  if o.schedule ~= false and #series > 1 and #series <= 4096 then
    local stretch, seg = dur / span, {}
    for i, iops in ipairs(series) do
      seg[i] = { duration = p.interval_s * stretch, iops = iops * scale, arrival = arrival_of(p) }
    end
    ph.schedule = seg
  else
    ph.rate = { iops = p.iops * scale, arrival = arrival_of(p) }
  end
  ph.duration = dur
end

-- The profile's zoned dist, when every zone of it holds two of the largest
-- blocks in the phase's region (else uniform: too small a region to tell).
local function hot_dist(p, region, biggest)
  if not p.dist or p.dist == "uniform" then return nil end
  local size = type(region) == "table" and region.size or region
  local ok, bytes = pcall(iomoon.size, size)
  if not ok then return p.dist end -- iomoon.run names the bad region
  for _, z in ipairs((p.hot or {}).zones or {}) do
    if bytes * z.region_pct / 100 < 2 * biggest then return nil end
  end
  return p.dist
end

-- Slots for 50 ms of latency at the trace's peak rate (at least 32, at
-- most 4096): an open loop late for want of slots measures iomoon's queue,
-- not the device.
local function default_qd(p, scale)
  local peak = p.iops or 0
  for _, v in ipairs(p.iops_over_time or {}) do peak = math.max(peak, v) end
  return math.max(32, math.min(4096, math.ceil(peak * scale * 0.05)))
end

local TO_PHASE_OPTS = { scale = "number", duration = { "number", "string" }, region = { "number", "string", "table" },
                        schedule = "boolean", qd = "number", name = "string" }

--- A phase iomoon.run takes that does what the profiled trace did: its
-- op mix, sizes and sequential shares (mix), hot spots (dist), pacing
-- (a schedule following its I/Os over time, or a flat rate), length and
-- touched extent (region), and one fsync every so many writes when it
-- synced. opts: scale (the rate times this), duration, region, schedule
-- (false: a flat rate), qd (slots per worker; default: 50 ms of the peak
-- rate, at least 32), name.
function M.to_phase(p, opts)
  if type(p) ~= "table" then
    errors.input("to_phase: a %s is not a profile (iomoon.trace.profile gives one)", type(p))
  end
  local o = errors.check_fields(opts or {}, "to_phase", TO_PHASE_OPTS)
  if o.scale ~= nil and not (o.scale > 0 and o.scale < math.huge) then
    errors.input("to_phase.scale: %s is not a factor above 0", tostring(o.scale))
  end
  if o.qd ~= nil and not (math.type(o.qd) == "integer" and o.qd >= 1 and o.qd <= 4096) then
    errors.input("to_phase.qd: %s is not a whole number from 1 to 4096", tostring(o.qd))
  end
  if o.duration ~= nil and not (seconds(o.duration, "to_phase.duration") > 0) then
    errors.input("to_phase.duration: %s is not above 0", tostring(o.duration))
  end
  local ph = { name = o.name or "trace" .. (p.device and (" " .. p.device) or ""), mix = mix_of(p),
               qd = o.qd or default_qd(p, o.scale or 1) }
  local extent = p.extent_bytes or 0
  local biggest = 0
  for _, s in ipairs(p.bs or {}) do biggest = math.max(biggest, s.bytes) end
  extent = math.max(extent, biggest)
  ph.region = o.region or ((extent + 4095) // 4096 * 4096)
  ph.dist = hot_dist(p, ph.region, biggest)
  if (p.syncs or 0) > 0 and (p.writes or 0) > 0 then
    ph.fsync = math.max(1, math.floor(p.writes / p.syncs + 0.5))
  end
  pacing(ph, p, o)
  return ph
end

-- Formats: sizes in B/KiB/MiB..., times in ns/us/ms/s.
local size = util.ioping_size
local function pct(v) return string.format("%.1f %%", v or 0) end
local function dur(ns)
  ns = ns or 0
  if ns >= 1e9 then return string.format("%.3f s", ns / 1e9) end
  if ns >= 1e6 then return string.format("%.3f ms", ns / 1e6) end
  if ns >= 1e3 then return string.format("%.1f us", ns / 1e3) end
  return string.format("%d ns", math.floor(ns))
end

local function sizes_line(list, other)
  local parts = {}
  for _, s in ipairs(list or {}) do parts[#parts + 1] = size(s.bytes) .. " " .. pct(s.pct) end
  if (other or 0) > 0 then parts[#parts + 1] = "other " .. pct(other) end
  return #parts > 0 and table.concat(parts, ", ") or "none"
end

local function zones_line(h)
  local parts = {}
  for _, z in ipairs(h.zones or {}) do
    parts[#parts + 1] = string.format("%s of the I/Os in %s of the region", pct(z.access_pct), pct(z.region_pct))
  end
  return table.concat(parts, "; ")
end

local function print_lines(p, w)
  w(string.format("trace: %d I/Os over %.3f s, %.1f IOPS (mean)%s", p.n, p.span_s, p.iops,
    p.device and (", device " .. require("iomoon.report").visible(p.device)) or ""))
  w(string.format("ops: read %s, write %s, trim %s, sync %s", pct(p.read_pct), pct(p.write_pct), pct(p.trim_pct),
    pct(p.sync_pct)))
  w(string.format("bytes: read %s, written %s, trimmed %s", size(p.bytes_read), size(p.bytes_written),
    size(p.bytes_trimmed)))
  w(string.format("sequential: %s of data I/Os (read %s, write %s, trim %s)", pct(p.seq_pct), pct(p.read_seq_pct),
    pct(p.write_seq_pct), pct(p.trim_seq_pct)))
  w("block sizes: " .. sizes_line(p.bs, p.bs_other_pct))
  for _, op in ipairs(OPS) do
    if (p[op .. "s"] or 0) > 0 then
      w(string.format("  %s: %s", op, sizes_line(p[op .. "_bs"], p[op .. "_bs_other_pct"])))
    end
  end
  w(string.format("region: offsets %s to %s (%s touched)", size(p.offset_min_bytes), size(p.offset_end_bytes),
    size(p.extent_bytes)))
  local h = p.hot or {}
  if (h.ios or 0) < 10 * #(h.cells_pct or {}) then
    w(string.format("hot spots: %s (%d I/Os placed: too few to tell hot spots apart)", p.dist, h.ios or 0))
  else
    w(string.format("hot spots: %s (%s I/Os placed; the fit misplaces %s of them)", p.dist,
      h.random_only and "the random" or "all", pct(h.misplaced_pct)))
  end
  if #(h.zones or {}) > 1 then w("  " .. zones_line(h)) end
  local g = p.gap or {}
  w(string.format("gaps: mean %s, cv %.2f, p50 %s, p99 %s, max %s: %s", dur(g.mean_ns), g.cv or 0, dur(g.p50_ns),
    dur(g.p99_ns), dur(g.max_ns), p.arrival))
  return h
end

--- Print profile p readably to out (a file, io.stdout by default; or a
-- function taking each line).
function M.print_profile(p, out)
  if type(p) ~= "table" then
    errors.input("print_profile: a %s is not a profile (iomoon.trace.profile gives one)", type(p))
  end
  out = out or io.stdout
  local w = type(out) == "function" and out or function(s) out:write(s, "\n") end
  print_lines(p, w)
  local series, lo, hi = p.iops_over_time or {}, math.huge, 0
  for _, v in ipairs(series) do lo, hi = math.min(lo, v), math.max(hi, v) end
  if #series > 0 then
    w(string.format("IOPS over time (%d interval%s of %.3f s): min %.1f IOPS, max %.1f IOPS", #series,
      #series == 1 and "" or "s", p.interval_s, lo, hi))
    for i = 1, #series, 10 do
      local row = {}
      for j = i, math.min(i + 9, #series) do row[#row + 1] = string.format("%.0f", series[j]) end
      w(string.format("  %8.3f s: %s IOPS", (i - 1) * p.interval_s, table.concat(row, " ")))
    end
  end
  if #(p.devices or {}) > 1 then
    local visible = require("iomoon.report").visible
    w(string.format("devices: %d", #p.devices))
    for _, d in ipairs(p.devices) do
      w(string.format("  %s: %d I/Os, %.1f IOPS, read %s, sequential %s, offsets %s to %s", visible(d.name), d.n,
        d.iops, pct(d.read_pct), pct(d.seq_pct), size(d.offset_min_bytes), size(d.offset_end_bytes)))
    end
  end
end

return M
