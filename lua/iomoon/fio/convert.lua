-- iomoon.fio.convert: a fio job file's phases (fio.load) written as a Lua
-- plan for `iomoon run` (`iomoon convert JOB.fio`, fio.convert), every
-- field commented with the fio options it came from.
local iomoon = require "iomoon"

local convert = {}

-- the fields of a phase in the order a reader wants them
local ORDER = { "name", "target", "path", "size", "allow_write", "force", "engine", "direct", "workers", "qd",
  "batch", "mix", "bs", "read", "trim", "random", "align", "weight", "region", "offset", "bytes", "ios",
  "duration", "ramp", "rate", "iops", "arrival", "think", "burst", "delay", "dist", "random_map", "seed", "fsync", "fdatasync",
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

--- The Lua plan of a job file's phases (from and notes as fio.load gives
-- them; path: the job file's, or nil for a text): a script for `iomoon
-- run` that checks every phase, then runs them, as `iomoon fio` does;
-- every field commented with the fio options it came from.
function convert.plan(phases, from, notes, path)
  left_out = false
  local name = path and redacted(path):gsub("[%c]", "?") or "a fio job file"
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
  local planned = false
  for _, p in ipairs(phases) do if p.meta and p.meta.fio then planned = true end end
  if planned then
    lines[#lines + 1] = "-- meta.fio: fio's steady state, latency target, startdelay, end_fsync, unlink, max_latency or rate_min,"
    lines[#lines + 1] = "-- run as iomoon plans by iomoon.fio.plans (doc/import.md, \"Plans instead of options\")"
    lines[#lines + 1] = 'local fio_plans = require "iomoon.fio.plans"'
    lines[#lines + 1] = "for _, p in ipairs(phases) do fio_plans.run(p) end"
  else
    lines[#lines + 1] = "for _, p in ipairs(phases) do iomoon.run(p) end"
  end
  lines[#lines + 1] = "return phases"
  if left_out then
    table.insert(lines, at, "-- A URL's password is left out of this plan: give it in LIBISCSI_CHAP_PASSWORD "
      .. "(with the user in the URL, iscsi://USER@HOST/...; doc/cli.md).")
  end
  return table.concat(lines, "\n") .. "\n"
end

return convert
