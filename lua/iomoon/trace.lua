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
      s.random = util.share(math.max(0, math.min(100, s.random)))
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

-- IOMeter-style spec fields of a group of I/Os: its read and trim shares.
local function shares(s, spec)
  local n = (s.reads or 0) + (s.writes or 0) + (s.trims or 0)
  local read = n > 0 and 100 * s.reads / n or 0
  if (s.trims or 0) > 0 then spec.trim = util.share(math.min(100 - read, 100 * s.trims / n)) end
  spec.read = util.share(read) -- under 1 %: "0.3%" (a plain 0.3 is refused as a fraction)
  return spec
end

-- Where a stream lies, as a region of the phase: [lo, hi) of the trace
-- taken relative to base (the trace's lowest offset, to 4 KiB), or scaled
-- into opts.region; whole 4 KiB, at least two of its largest blocks.
local function place(lo, hi, base, extent, region, biggest)
  local off, size = lo - base, hi - lo
  if region then
    local r = type(region) == "table" and region or { size = region }
    local ok, rsize = pcall(iomoon.size, r.size)
    local ok2, roff = pcall(iomoon.size, r.offset or 0)
    if not (ok and ok2) then return region end -- iomoon.run names the bad region
    local f = rsize / math.max(1, extent)
    off, size = roff + math.floor(off * f), math.floor(size * f)
  end
  off = off // 4096 * 4096
  size = math.max((size + 4095) // 4096 * 4096, (2 * biggest + 4095) // 4096 * 4096)
  return { offset = off, size = size }
end

-- A stream's pacing from its own I/Os over time (reads, writes and
-- trims), or a flat rate of mean_iops; with no rate, ios of them.
local function stream_pacing(st, p, o, series, mean_iops, arrival, count)
  local scale = o.scale or 1
  if not ((p.span_s or 0) > 0 and mean_iops > 0) then
    st.ios = math.max(1, math.floor(count * scale + 0.5))
    return
  end
  if o.schedule ~= false and #series > 1 and #series <= 4096 then
    local dur = o.duration and seconds(o.duration, "to_phase.duration") or p.span_s
    local seg = {}
    for i, iops in ipairs(series) do
      seg[i] = { duration = p.interval_s * dur / p.span_s, iops = iops * scale, arrival = arrival }
    end
    st.schedule = seg
  else
    st.rate = { iops = mean_iops * scale, arrival = arrival }
  end
end

local function peak(series, mean)
  local top = mean or 0
  for _, v in ipairs(series or {}) do top = math.max(top, v) end
  return top
end

local function fsync_every(s)
  if (s.syncs or 0) > 0 and (s.writes or 0) > 0 then return math.max(1, math.floor(s.writes / s.syncs + 0.5)) end
end

-- One phase stream per significant sequential stream of the profile: its
-- op, sizes, region, pacing, one worker per run in progress at once, and
-- its syncs (then one I/O at a time per worker: a log writer waits for
-- its sync, and each slot counts its own writes for fsync = N).
local function seq_stream(p, s, o, base, names)
  local biggest = 0
  for _, b in ipairs(s.bs) do biggest = math.max(biggest, b.bytes) end
  local name = string.format("sequential %s %s", s.op, util.ioping_size(s.bs[1] and s.bs[1].bytes or 0))
  names[name] = (names[name] or 0) + 1
  if names[name] > 1 then name = name .. " " .. names[name] end
  local st = { name = name, mix = { shares(s, { bs = bs_list(s.bs), random = 0 }) },
               workers = math.max(1, s.concurrent), fsync = fsync_every(s),
               region = place(s.offset_min_bytes, s.offset_end_bytes, base, p.extent_bytes, o.region, biggest) }
  st.qd = o.qd or (st.fsync and 1) or default_qd({ iops = peak(s.iops_over_time, s.iops) }, o.scale or 1)
  stream_pacing(st, p, o, s.iops_over_time or {}, s.iops, arrival_of(s), s.ios)
  return st
end

-- The rest of the trace (p.random) as a stream of its own: its mix, hot
-- spots, region, pacing and syncs, as to_phase makes of a whole trace.
local function rest_stream(p, o, base)
  local r = p.random
  local data = (r.reads or 0) + (r.writes or 0) + (r.trims or 0)
  if data == 0 then return nil end
  local biggest = 0
  for _, b in ipairs(r.bs or {}) do biggest = math.max(biggest, b.bytes) end
  local st = { name = "random", mix = mix_of(r), fsync = fsync_every(r),
               region = place(r.offset_min_bytes, r.offset_end_bytes, base, p.extent_bytes, o.region, biggest) }
  st.dist = hot_dist(p, st.region, biggest)
  local mean = (p.span_s or 0) > 0 and data / p.span_s or 0
  st.qd = o.qd or default_qd({ iops = peak(r.iops_over_time, mean) }, o.scale or 1)
  stream_pacing(st, p, o, r.iops_over_time or {}, mean, arrival_of(p), data)
  return st
end

-- A profile with significant sequential streams: a phase of streams.
local function streams_phase(p, o)
  local base = (p.offset_min_bytes or 0) // 4096 * 4096
  local ph, names = { name = o.name or "trace" .. (p.device and (" " .. p.device) or ""), streams = {} }, {}
  for _, s in ipairs(p.streams) do ph.streams[#ph.streams + 1] = seq_stream(p, s, o, base, names) end
  ph.streams[#ph.streams + 1] = rest_stream(p, o, base)
  if (p.span_s or 0) > 0 and (p.iops or 0) > 0 then
    ph.duration = o.duration and seconds(o.duration, "to_phase.duration") or p.span_s
  end
  return ph
end

local TO_PHASE_OPTS = { scale = "number", duration = { "number", "string" }, region = { "number", "string", "table" },
                        schedule = "boolean", qd = "number", name = "string" }

--- A phase iomoon.run takes that does what the profiled trace did: its
-- op mix, sizes and sequential shares (mix), hot spots (dist), pacing
-- (a schedule following its I/Os over time, or a flat rate), length and
-- touched extent (region), and one fsync every so many writes when it
-- synced. A trace with significant sequential streams (profile.streams: a
-- WAL beside random data I/O) gives a phase of streams: one per sequential
-- stream (its op, sizes, region, rate, syncs, workers) and one of the
-- rest. opts: scale (the rate times this), duration, region, schedule
-- (false: a flat rate), qd (slots per worker; default: 50 ms of the peak
-- rate, at least 32; 1 for a stream that syncs), name.
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
  if #(p.streams or {}) > 0 and p.random then return streams_phase(p, o) end
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
local visible = util.shown
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

-- The significant sequential streams, and the rest, a line each.
local function streams_lines(p, w)
  if #(p.streams or {}) == 0 then return end
  local function syncs(s)
    return s.syncs > 0 and string.format("a sync every %.1f writes", s.writes / s.syncs) or "no sync"
  end
  w(string.format("streams: %d sequential stream%s, and the rest", #p.streams, #p.streams == 1 and "" or "s"))
  for _, s in ipairs(p.streams) do
    local sizes = #s.bs == 1 and s.bs_other_pct == 0 and size(s.bs[1].bytes) or sizes_line(s.bs, s.bs_other_pct)
    local on = #p.devices > 1 and (" on " .. visible(s.device)) or ""
    w(string.format("  %s %s%s: %s of data I/Os (%d I/Os), %.1f IOPS (%s), %d run%s, %d stream%s at once, "
      .. "%s from %s, %s", s.op, sizes, on, pct(s.pct), s.ios, s.iops, s.arrival, s.runs, s.runs == 1 and "" or "s",
      s.concurrent, s.concurrent == 1 and "" or "s", size(s.extent_bytes), size(s.offset_min_bytes), syncs(s)))
  end
  local r, all = p.random, p.reads + p.writes + p.trims
  local data = r.reads + r.writes + r.trims
  w(string.format("  rest: %s of data I/Os (%d I/Os), %.1f IOPS, read %s, sequential %s, %s from %s, %s",
    pct(all > 0 and 100 * data / all or 0), data, p.span_s > 0 and data / p.span_s or 0,
    pct(data > 0 and 100 * r.reads / data or 0), pct(r.seq_pct), size(r.extent_bytes), size(r.offset_min_bytes),
    syncs(r)))
end

local function print_lines(p, w)
  w(string.format("trace: %d I/Os over %.3f s, %.1f IOPS (mean)%s", p.n, p.span_s, p.iops,
    p.device and (", device " .. visible(p.device)) or ""))
  w(string.format("ops: read %s, write %s, trim %s, sync %s", pct(p.read_pct), pct(p.write_pct), pct(p.trim_pct),
    pct(p.sync_pct)))
  w(string.format("bytes: read %s, written %s, trimmed %s", size(p.bytes_read), size(p.bytes_written),
    size(p.bytes_trimmed)))
  w(string.format("sequential: %s of data I/Os (read %s, write %s, trim %s), in %d run%s, %d stream%s at most at once",
    pct(p.seq_pct), pct(p.read_seq_pct), pct(p.write_seq_pct), pct(p.trim_seq_pct), p.seq_runs or 0,
    p.seq_runs == 1 and "" or "s", p.seq_streams or 0, p.seq_streams == 1 and "" or "s"))
  streams_lines(p, w)
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
    w(string.format("devices: %d", #p.devices))
    for _, d in ipairs(p.devices) do
      w(string.format("  %s: %d I/Os, %.1f IOPS, read %s, sequential %s, offsets %s to %s", visible(d.name), d.n,
        d.iops, pct(d.read_pct), pct(d.seq_pct), size(d.offset_min_bytes), size(d.offset_end_bytes)))
    end
  end
end

return M
