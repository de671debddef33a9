-- iomoon.fio.json: results in fio's --output-format=json layout (fio.json,
-- `--format fio-json`): one job per phase, or per stream of a phase with
-- streams, with fio's fields where iomoon has the figures.
local iomoon = require "iomoon"
local json = require "iomoon.json"

local out = {}

-- fio's percentiles, where iomoon's latency figures have them
local PCT = { { "50.000000", "p50_ns" }, { "90.000000", "p90_ns" }, { "99.000000", "p99_ns" },
  { "99.900000", "p999_ns" }, { "99.990000", "p9999_ns" } }
local FIO_PCT = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 }

local object = json.object

-- json+ (fio's --output-format=json+): each clat_ns block also has
-- `bins`, the histogram's counts by latency (ns, the middle of each bucket)
local plus = false

local function raw(t, k)
  if type(t) ~= "table" then return nil end
  return rawget(t, k)
end

--- The histogram of a latency table: its own (a live result's), else one
-- read from the bucket list a report's copy keeps for the formats that
-- need it (lat.buckets, {low, width, count}: --format fio-json+ and
-- fio-terse), with the two methods used here; nil when neither.
function out.hist_of(l)
  local h = raw(l, "hist")
  if type(h) == "userdata" then return h end
  local list = raw(l, "buckets")
  if type(list) ~= "table" then return nil end
  local total = 0
  for _, b in ipairs(list) do total = total + b[3] end
  return {
    buckets = function() return list end,
    percentile = function(_, p)
      local want, seen = total * p / 100, 0
      for _, b in ipairs(list) do
        seen = seen + b[3]
        if seen >= want then return b[1] + b[2] // 2 end
      end
      return list[#list] and list[#list][1] or 0
    end,
  }
end

-- fio's latency block {min, max, mean, stddev, N, percentile} of an
-- iomoon latency table (with its histogram when the result still has it);
-- percentiles only where fio writes them by default (clat, sync's lat)
local function lat_block(l, n, with_pct, h)
  if type(l) ~= "table" then
    return object { min = 0, max = 0, mean = 0, stddev = 0, N = 0 }
  end
  local b = object { min = raw(l, "min_ns") or 0, max = raw(l, "max_ns") or 0, mean = raw(l, "mean_ns") or 0,
    stddev = raw(l, "stdev_ns") or 0, N = n }
  local pct = object {}
  h = h or out.hist_of(l) -- a live result's histogram, or a report's bucket list; a file read back has neither
  if n > 0 and h ~= nil then
    for _, p in ipairs(FIO_PCT) do pct[string.format("%.6f", p)] = h:percentile(p) end
  elseif n > 0 then
    for _, e in ipairs(PCT) do pct[e[1]] = raw(l, e[2]) end
  end
  if n > 0 and with_pct then b.percentile = pct end
  if n > 0 and with_pct and plus and h ~= nil then
    local bins = object {}
    for _, e in ipairs(h:buckets()) do bins[string.format("%d", e[1] + e[2] // 2)] = e[3] end
    b.bins = bins
  end
  return b
end

-- One direction of a result (iomoon's result.read / write / trim) as fio's
-- section; runtime_ms: the job's measured time; h: a histogram of this
-- direction's latencies, when the result has one (the whole result's,
-- when it did only this kind of I/O).
local function dir_block(d, runtime_ms, h)
  local ios = raw(d, "ios") or 0
  local bytes = raw(d, "bytes") or 0
  local lat = raw(d, "svc") or raw(d, "lat")
  local secs = runtime_ms / 1000
  return object {
    io_bytes = bytes, io_kbytes = bytes // 1024, bw_bytes = secs > 0 and math.floor(bytes / secs) or 0,
    bw = secs > 0 and math.floor(bytes / secs / 1024) or 0, iops = raw(d, "iops") or 0,
    runtime = ios > 0 and runtime_ms or 0, total_ios = ios, short_ios = 0, drop_ios = 0,
    slat_ns = lat_block(nil, 0), clat_ns = lat_block(lat, ios, true, h), lat_ns = lat_block(lat, ios),
  }
end

-- The result's own histogram when all its I/Os were of kind `op` (and it
-- still has it: a report's copy has none), for that direction's percentiles;
-- the service time's when paced (as fio measures).
local function only(r, op)
  local n = raw(raw(r, op), "ios") or 0
  if n == 0 or n ~= (raw(r, "ios") or -1) then return nil end
  return out.hist_of(raw(r, "svc") or raw(r, "lat"))
end

-- One result (a phase, or a stream of one) as a fio job.
local function job_of(r, group, phase)
  local runtime_ms = math.floor((raw(r, "seconds") or 0) * 1000 + 0.5)
  local cpu = raw(phase, "cpu") or {}
  local secs = raw(phase, "seconds") or 0
  local s = raw(r, "sync")
  return object {
    jobname = raw(r, "name") or "", groupid = group, error = (raw(r, "failed") or (raw(r, "errors") or 0) > 0) and 1 or 0,
    eta = 0, elapsed = math.floor(secs + (raw(phase, "ramp_s") or 0) + 0.5),
    read = dir_block(raw(r, "read"), runtime_ms, only(r, "read")),
    write = dir_block(raw(r, "write"), runtime_ms, only(r, "write")),
    trim = dir_block(raw(r, "trim"), runtime_ms, only(r, "trim")),
    sync = object { total_ios = raw(s, "ios") or 0, lat_ns = lat_block(raw(s, "lat"), raw(s, "ios") or 0, true) },
    job_runtime = runtime_ms,
    usr_cpu = secs > 0 and (raw(cpu, "user_s") or 0) / secs * 100 or 0,
    sys_cpu = secs > 0 and (raw(cpu, "sys_s") or 0) / secs * 100 or 0,
    ctx = 0, majf = 0, minf = 0,
  }
end

-- An ISO 8601 time in UTC (result.ended: "2026-12-01T19:05:32.123Z") as
-- milliseconds since the epoch, or nil (days from the civil date, so that
-- the local time zone plays no part).
local function epoch_ms(iso)
  local y, mo, d, h, mi, s, frac = tostring(iso):match("^(%d+)%-(%d+)%-(%d+)T(%d+):(%d+):(%d+)%.?(%d*)Z$")
  if not y then return nil end
  y, mo = tonumber(y) - (tonumber(mo) <= 2 and 1 or 0), tonumber(mo)
  local era = y // 400
  local yoe = y - era * 400
  local doy = (153 * (mo + (mo > 2 and -3 or 9)) + 2) // 5 + tonumber(d) - 1
  local days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
  local ms = tonumber((frac .. "000"):sub(1, 3))
  return (days * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(s)) * 1000 + ms
end

-- When the results were measured: the end of the last that says (fio
-- writes its time as its jobs end), or nil for results that do not.
local function measured_at(results)
  for i = #results, 1, -1 do
    local t = epoch_ms(raw(results[i], "ended"))
    if t then return t end
  end
end

--- Results in fio's --output-format=json layout (with_bins: json+, the
-- latency histograms' bins too): one job per phase, or
-- per stream of a phase with streams (its group: the phase). `timestamp`,
-- `timestamp_ms` and `time` (UTC) say when the last phase's measured time
-- ended, and are left out for results that do not say (an older iomoon's
-- file); version: the iomoon that measured (nil: this one).
function out.json(results, version, with_bins)
  plus = with_bins or false
  local jobs = {}
  for i, r in ipairs(results) do
    local streams = raw(r, "streams")
    if type(streams) == "table" and #streams > 0 then
      for _, s in ipairs(streams) do jobs[#jobs + 1] = job_of(s, i - 1, r) end
    else
      jobs[#jobs + 1] = job_of(r, i - 1, r)
    end
  end
  local ms = measured_at(results)
  local at = ms and ms // 1000
  return json.encode(object {
    ["fio version"] = "iomoon-" .. (version or iomoon.version), timestamp = at, timestamp_ms = ms,
    time = at and os.date("!%a %b %d %H:%M:%S %Y", at), jobs = jobs, disk_util = {},
  }, "  ") .. "\n"
end

return out
