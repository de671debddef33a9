-- iomoon.fio.terse: results as fio's terse output, version 3 (fio's
-- --minimal and --output-format=terse): one line of semicolon-separated
-- fields per job (a phase, or a stream of one), in the order fio's HOWTO
-- ("Terse output") lists them, so scripts that cut fields from fio's line
-- read iomoon's. Latencies in microseconds, sizes in KiB, as fio writes.
local iomoon = require "iomoon"
local fio_json = require "iomoon.fio.json"

local terse = {}

local function raw(t, k)
  if type(t) ~= "table" then return nil end
  return rawget(t, k)
end

-- fio's default completion-latency percentiles, 17 of terse's 20 places
local PCT = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 }
local US_BINS = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 }
local MS_BINS = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000 }

local function f6(x) return string.format("%f", x or 0) end
local function int(x) return string.format("%d", math.floor(x or 0)) end

-- a latency table's min;max;mean;stdev in us (min and max whole, as fio)
local function lat4(l)
  return { int((raw(l, "min_ns") or 0) // 1000), int((raw(l, "max_ns") or 0) // 1000),
    f6((raw(l, "mean_ns") or 0) / 1000), f6((raw(l, "stdev_ns") or 0) / 1000) }
end

-- the histogram of a direction: the result's own when it did only that kind of I/O
local function hist_of(r, op)
  local n = raw(raw(r, op), "ios") or 0
  if n == 0 or n ~= (raw(r, "ios") or -1) then return nil end
  return fio_json.hist_of(raw(r, "svc") or raw(r, "lat"))
end

-- A percentile from a latency table's curve (lat.percentiles, {p, ns}
-- pairs: what a report's copy of a result keeps): the first point at or
-- past p.
local function from_curve(lat, p)
  local best
  for _, e in ipairs(raw(lat, "percentiles") or {}) do
    if e[1] >= p then return e[2] end
    best = e[2]
  end
  return best or 0
end

-- The share (0..1) of I/Os at or under ns, from the curve.
local function share_under(lat, ns)
  local share = 0
  for _, e in ipairs(raw(lat, "percentiles") or {}) do
    if e[2] <= ns then share = e[1] / 100 end
  end
  return share
end

-- one direction's 45 fields (v3): KiB, KiB/s, IOPS, runtime; slat; clat;
-- 20 percentiles; lat; bw min, max, aggregate %, mean, stdev
local function dir_fields(r, op, runtime_ms, out)
  local d = raw(r, op)
  local ios, bytes = raw(d, "ios") or 0, raw(d, "bytes") or 0
  local secs = runtime_ms / 1000
  local bw = secs > 0 and bytes / secs / 1024 or 0
  local lat = raw(d, "svc") or raw(d, "lat")
  local h = hist_of(r, op)
  local function add(t) for _, x in ipairs(t) do out[#out + 1] = x end end
  add { int(bytes // 1024), int(bw), int(raw(d, "iops") or 0), int(ios > 0 and runtime_ms or 0) }
  add { "0", "0", f6(0), f6(0) } -- slat: iomoon measures from submission (fio's clat is the latency)
  add(ios > 0 and lat4(lat) or { "0", "0", f6(0), f6(0) })
  for i = 1, 20 do
    local p = PCT[i]
    if p and ios > 0 then
      local ns = h and h:percentile(p) or from_curve(lat, p)
      out[#out + 1] = string.format("%f%%=%d", p, math.floor(ns / 1000))
    elseif p then
      out[#out + 1] = string.format("%f%%=0", p)
    else
      out[#out + 1] = "0%=0"
    end
  end
  add(ios > 0 and lat4(lat) or { "0", "0", f6(0), f6(0) })
  -- bandwidth over the per-interval samples (this direction's share of each)
  local lo, hi, sum, sq, n = nil, 0, 0, 0, 0
  local share = (raw(r, "bytes") or 0) > 0 and bytes / raw(r, "bytes") or 0
  for _, iv in ipairs(raw(r, "intervals") or {}) do
    local kib = (iv.mb_per_s or 0) * 1e6 / 1024 * share
    lo, hi = math.min(lo or kib, kib), math.max(hi, kib)
    sum, sq, n = sum + kib, sq + kib * kib, n + 1
  end
  local mean = n > 0 and sum / n or 0
  local dev = n > 1 and math.sqrt(math.max(0, (sq - n * mean * mean) / (n - 1))) or 0
  add { int(lo or 0), int(hi), string.format("%f%%", ios > 0 and 100 or 0), f6(mean), f6(dev) }
end

-- the share of I/Os in each of fio's latency bins (us, then ms), from the
-- histogram's buckets (a bucket counts where its low edge falls)
local function lat_bins(r)
  local h = fio_json.hist_of(raw(r, "lat"))
  local us, ms = {}, {}
  for i = 1, #US_BINS do us[i] = 0 end
  for i = 1, #MS_BINS + 1 do ms[i] = 0 end
  local total = 0
  if h then
    for _, b in ipairs(h:buckets()) do
      local low, count = b[1], b[3]
      total = total + count
      local placed = false
      for i, edge in ipairs(US_BINS) do
        if low <= edge * 1000 then us[i] = us[i] + count; placed = true; break end
      end
      if not placed then
        for i, edge in ipairs(MS_BINS) do
          if low <= edge * 1e6 then ms[i] = ms[i] + count; placed = true; break end
        end
      end
      if not placed then ms[#ms] = ms[#ms] + count end
    end
  end
  if total == 0 and (raw(r, "ios") or 0) > 0 then -- a report's copy: the shares from the latency curve
    local lat, below = raw(r, "lat"), 0
    for i, edge in ipairs(US_BINS) do
      local s = share_under(lat, edge * 1000)
      us[i], below = s - below, s
    end
    for i, edge in ipairs(MS_BINS) do
      local s = share_under(lat, edge * 1e6)
      ms[i], below = s - below, s
    end
    ms[#MS_BINS + 1] = 1 - below
    total = 1
  end
  local out = {}
  for _, c in ipairs(us) do out[#out + 1] = string.format("%.2f%%", total > 0 and c * 100 / total or 0) end
  for _, c in ipairs(ms) do out[#out + 1] = string.format("%.2f%%", total > 0 and c * 100 / total or 0) end
  return out
end

-- the queue depth distribution: every I/O at the job's depth (fio's
-- buckets 1, 2, 4, 8, 16, 32, >= 64)
local function depths(r)
  local qd = raw(r, "qd") or 1
  local out = {}
  for i, edge in ipairs { 1, 2, 4, 8, 16, 32, 64 } do
    local next_edge = ({ 2, 4, 8, 16, 32, 64, math.huge })[i]
    out[i] = string.format("%.1f%%", (qd >= edge and qd < next_edge) and 100 or 0)
  end
  return out
end

--- The terse v3 line of one result (a phase, or a stream of phase `phase`).
function terse.line(r, group, phase, version)
  local runtime_ms = math.floor((raw(r, "seconds") or 0) * 1000 + 0.5)
  local errs = raw(r, "errors") or 0
  local out = { "3", "iomoon-" .. (version or iomoon.version), (tostring(raw(r, "name") or "")):gsub(";", ","),
    tostring(group), (raw(r, "failed") or errs > 0) and "1" or "0" }
  dir_fields(r, "read", runtime_ms, out)
  dir_fields(r, "write", runtime_ms, out)
  local cpu = raw(phase, "cpu") or {}
  local secs = raw(phase, "seconds") or 0
  out[#out + 1] = string.format("%f%%", secs > 0 and (raw(cpu, "user_s") or 0) / secs * 100 or 0)
  out[#out + 1] = string.format("%f%%", secs > 0 and (raw(cpu, "sys_s") or 0) / secs * 100 or 0)
  out[#out + 1], out[#out + 2], out[#out + 3] = "0", "0", "0"
  for _, x in ipairs(depths(r)) do out[#out + 1] = x end
  for _, x in ipairs(lat_bins(r)) do out[#out + 1] = x end
  local dev = raw(phase, "device")
  if type(dev) == "table" and raw(dev, "name") then
    local reads, writes = raw(dev, "reads") or 0, raw(dev, "writes") or 0
    for _, x in ipairs { raw(dev, "name"), int(reads), int(writes), "0", "0",
      int(reads * (raw(dev, "read_mean_ns") or 0) / 1e6), int(writes * (raw(dev, "write_mean_ns") or 0) / 1e6), "0",
      string.format("%.2f%%", raw(dev, "util_pct") or 0) } do out[#out + 1] = x end
  end
  local desc = raw(raw(r, "meta"), "description")
  if type(desc) == "string" then out[#out + 1] = desc end
  return table.concat(out, ";")
end

--- Results as fio's terse v3 lines (one per job), with a newline each.
function terse.lines(results, version)
  local lines = {}
  for i, r in ipairs(results) do
    local streams = raw(r, "streams")
    if type(streams) == "table" and #streams > 0 then
      for _, s in ipairs(streams) do lines[#lines + 1] = terse.line(s, i - 1, r, version) end
    else
      lines[#lines + 1] = terse.line(r, i - 1, r, version)
    end
  end
  return #lines > 0 and (table.concat(lines, "\n") .. "\n") or ""
end

return terse
