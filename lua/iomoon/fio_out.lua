-- iomoon.fio_out: what iomoon writes for fio users: a job file converted
-- to a Lua plan (convert), and results in fio's --output-format=json
-- layout (json).
local iomoon = require "iomoon"
local json = require "iomoon.json"

local out = {}

-- the fields of a phase in the order a reader wants them
local ORDER = { "name", "target", "path", "size", "allow_write", "force", "engine", "direct", "workers", "qd",
  "batch", "mix", "bs", "read", "trim", "random", "align", "weight", "region", "offset", "bytes", "ios",
  "duration", "ramp", "rate", "iops", "arrival", "think", "burst", "delay", "dist", "seed", "fsync", "fdatasync",
  "verify", "verify_only", "meta", "streams" }
local RANK = {}
for i, k in ipairs(ORDER) do RANK[k] = i end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do if type(k) == "string" then keys[#keys + 1] = k end end
  table.sort(keys, function(a, b)
    local ra, rb = RANK[a] or 1000, RANK[b] or 1000
    if ra ~= rb then return ra < rb end
    return a < b
  end)
  return keys
end

-- whether the plan being written left a URL's password out
local left_out = false

-- s without a URL's password (iomoon.redact), noting that one was left out
local function redacted(s)
  local r = iomoon.redact(s)
  if r ~= s then left_out = true end
  return r
end

local function scalar(v)
  if type(v) == "string" then return (string.format("%q", redacted(v)):gsub("\\\n", "\\n")) end
  if math.type(v) == "float" then
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%.1f", v) end
    return string.format("%.17g", v)
  end
  return tostring(v)
end

-- Lua source of value v at indent ind; comments: field -> text (from).
local function lua_of(v, ind, from)
  if type(v) ~= "table" then return scalar(v) end
  local is_list = #v > 0
  local inner = ind .. "  "
  if is_list then
    local simple = true
    for _, x in ipairs(v) do if type(x) == "table" and (#x == 0 or type(x[1]) == "table") then simple = false end end
    local parts = {}
    for i, x in ipairs(v) do parts[i] = lua_of(x, inner, from) end
    if simple then return "{ " .. table.concat(parts, ", ") .. " }" end
    return "{\n" .. inner .. table.concat(parts, ",\n" .. inner) .. ",\n" .. ind .. "}"
  end
  local keys = sorted_keys(v)
  local notes = from[v]
  local nested = notes ~= nil
  for _, k in ipairs(keys) do if type(v[k]) == "table" and k ~= "bs" then nested = true end end
  if not nested then
    local parts = {}
    for i, k in ipairs(keys) do parts[i] = k .. " = " .. lua_of(v[k], inner, from) end
    return "{ " .. table.concat(parts, ", ") .. " }"
  end
  local lines = { "{" }
  for _, k in ipairs(keys) do
    local note = notes and notes[k] and redacted(notes[k]):gsub("[%c]", "?") -- ${VAR} may hold a newline: one comment line
    lines[#lines + 1] = inner .. k .. " = " .. lua_of(v[k], inner, from) .. "," .. (note and (" -- " .. note) or "")
  end
  lines[#lines + 1] = ind .. "}"
  return table.concat(lines, "\n")
end

--- The Lua plan of a fio job file (a path, or its text): a script for
-- `iomoon run` that checks every phase, then runs them, as `iomoon fio`
-- does; every field commented with the fio options it came from.
function out.convert(path_or_text, opts)
  local fio = require "iomoon.fio"
  local src
  if not path_or_text:find("\n") and iomoon.stat(path_or_text) then
    src = { path = path_or_text }
  else
    src = { text = path_or_text, name = "job.fio" }
  end
  local phases, from, notes = fio.load({ src }, opts)
  left_out = false
  local name = src.path and redacted(src.path):gsub("[%c]", "?") or "a fio job file"
  local lines = {
    "-- iomoon plan converted from " .. name .. " (iomoon convert).",
    "-- Run it with: iomoon run THIS.lua -- the same phases as `iomoon fio` runs from the job file.",
    "-- Each field says which fio option set it; doc/import.md says how they map.",
  }
  for _, n in ipairs(notes) do lines[#lines + 1] = "-- note: " .. redacted(n):gsub("[%c]", "?") end
  local at = #lines + 1
  lines[#lines + 1] = 'local iomoon = require "iomoon"'
  lines[#lines + 1] = ""
  lines[#lines + 1] = "local phases = {"
  for i, p in ipairs(phases) do
    lines[#lines + 1] = "  -- phase " .. i .. (p.streams and (": " .. #p.streams .. " jobs of one group, run together")
      or "")
    lines[#lines + 1] = "  " .. lua_of(p, "  ", from) .. ","
  end
  lines[#lines + 1] = "}"
  lines[#lines + 1] = ""
  lines[#lines + 1] = "-- every phase checked before the first runs (bad input leaves nothing on disk)"
  lines[#lines + 1] = "for _, p in ipairs(phases) do iomoon.check(p) end"
  lines[#lines + 1] = "for _, p in ipairs(phases) do iomoon.run(p) end"
  lines[#lines + 1] = "return phases"
  if left_out then
    table.insert(lines, at, "-- A URL's password is left out of this plan: give it in LIBISCSI_CHAP_PASSWORD "
      .. "(with the user in the URL, iscsi://USER@HOST/...; doc/cli.md).")
  end
  return table.concat(lines, "\n") .. "\n"
end

-- fio's percentiles, where iomoon's latency figures have them
local PCT = { { "50.000000", "p50_ns" }, { "90.000000", "p90_ns" }, { "99.000000", "p99_ns" },
  { "99.900000", "p999_ns" }, { "99.990000", "p9999_ns" } }
local FIO_PCT = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 }

local object = json.object

local function raw(t, k)
  if type(t) ~= "table" then return nil end
  return rawget(t, k)
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
  h = h or raw(l, "hist")
  if type(h) ~= "userdata" then h = nil end -- a live result's histogram; a file read back has none
  if n > 0 and h ~= nil then
    for _, p in ipairs(FIO_PCT) do pct[string.format("%.6f", p)] = h:percentile(p) end
  elseif n > 0 then
    for _, e in ipairs(PCT) do pct[e[1]] = raw(l, e[2]) end
  end
  if n > 0 and with_pct then b.percentile = pct end
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
  return raw(raw(r, "svc") or raw(r, "lat"), "hist")
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

--- Results in fio's --output-format=json layout: one job per phase, or
-- per stream of a phase with streams (its group: the phase).
function out.json(results)
  local jobs = {}
  for i, r in ipairs(results) do
    local streams = raw(r, "streams")
    if type(streams) == "table" and #streams > 0 then
      for _, s in ipairs(streams) do jobs[#jobs + 1] = job_of(s, i - 1, r) end
    else
      jobs[#jobs + 1] = job_of(r, i - 1, r)
    end
  end
  local now = os.time()
  return json.encode(object {
    ["fio version"] = "iomoon-" .. iomoon.version, timestamp = now, timestamp_ms = now * 1000,
    time = os.date("%a %b %d %H:%M:%S %Y", now), jobs = jobs, disk_util = {},
  }, "  ") .. "\n"
end

return out
