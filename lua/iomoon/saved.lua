-- iomoon.saved: a results file read back (doc/reports.md): the JSON
-- document `--format json` writes, parsed and checked, for `iomoon report`,
-- `compare` and `rerun`. A file that is not JSON, not an iomoon document,
-- or lacks what a report needs is an input error naming the file and what
-- is wrong; nothing is guessed.

local errors = require "iomoon.errors"
local iomoon = require "iomoon"
local json = require "iomoon.json"
local iometer = require "iomoon.iometer"
local util = require "iomoon.util"

local saved = {}

-- JSON objects come back with this metatable (json.decode), so that an
-- empty one ({} in the file) is told from an empty list.
local OBJECT = json.OBJECT

-- What every phase of a results file must hold for every report format:
-- a path (dots; "?" marks an optional table) and a Lua type.
local REQUIRED = {
  { "name", "string" }, { "iops", "number" }, { "mb_per_s", "number" }, { "mib_per_s", "number" },
  { "seconds", "number" }, { "errors", "number" }, { "workers", "number" }, { "qd", "number" },
  { "engine", "string" }, { "interrupted", "boolean" }, { "failed", "boolean" },
  { "lat", "table" }, { "lat.mean_ns", "number" }, { "lat.max_ns", "number" }, { "lat.p50_ns", "number" },
  { "lat.p99_ns", "number" }, { "lat.p999_ns", "number" }, { "lat.p9999_ns", "number" },
  { "cpu", "table" }, { "cpu.util_pct", "number" }, { "cpu.user_s", "number" }, { "cpu.sys_s", "number" },
}
for _, op in ipairs({ "read", "write" }) do
  REQUIRED[#REQUIRED + 1] = { op, "table" }
  for _, f in ipairs({ "iops", "mib_per_s", "mb_per_s", "errors", "bytes", "ios" }) do
    REQUIRED[#REQUIRED + 1] = { op .. "." .. f, "number" }
  end
  REQUIRED[#REQUIRED + 1] = { op .. ".lat", "table" }
  REQUIRED[#REQUIRED + 1] = { op .. ".lat.mean_ns", "number" }
  REQUIRED[#REQUIRED + 1] = { op .. ".lat.max_ns", "number" }
end

-- The value at dotted path in t, or nil.
local function at(t, path)
  for k in path:gmatch("[^.]+") do
    if type(t) ~= "table" then return nil end
    t = t[k]
  end
  return t
end

-- A number as a message shows it (%g: 1e+308, not 309 digits).
local function number_text(v)
  return math.type(v) == "float" and string.format("%g", v) or tostring(v)
end

-- Fields a phase may lack but, when it has them, compare and the charts
-- compute with: ios, and each interval's figures.
local IV_FIELDS = { "t_s", "len_s", "iops", "mb_per_s", "p50_ns", "p99_ns", "max_ns" }

-- Fields a phase may lack, and the type they need when it has them
-- (fio-json computes with them).
local OPTIONAL = { { "ios", "number" }, { "ramp_s", "number" }, { "trim", "table" }, { "sync", "table" },
  { "sync.ios", "number" }, { "svc", "table" }, { "replay", "table" } }
for _, f in ipairs({ "ios", "planned_ios", "due_ios", "on_time_ios", "late_ios", "missed_ios", "cut_ios",
  "on_time_pct" }) do
  OPTIONAL[#OPTIONAL + 1] = { "replay." .. f, "number" } -- a replay's figures (report.replay_cut reads them)
end
for _, op in ipairs({ "trim.", "read.", "write." }) do
  for _, f in ipairs({ "ios", "bytes", "iops" }) do OPTIONAL[#OPTIONAL + 1] = { op .. f, "number" } end
  OPTIONAL[#OPTIONAL + 1] = { op .. "svc", "table" }
end
-- result.verify (a crc32c phase): counts, each a whole number of 0 or more
local VERIFY_COUNTS = { "units_checked", "units_unwritten", "units_unexpected", "units_skipped", "unit_bytes",
  "written_end_bytes" }
OPTIONAL[#OPTIONAL + 1] = { "verify", "table" }
for _, f in ipairs(VERIFY_COUNTS) do OPTIONAL[#OPTIONAL + 1] = { "verify." .. f, "number" } end
OPTIONAL[#OPTIONAL + 1] = { "verify.skip_unwritten", "boolean" }

-- The first thing wrong with r's optional fields, or nil.
local function optional_problem(r, where)
  for _, o in ipairs(OPTIONAL) do
    local v = at(r, o[1])
    if v ~= nil and type(v) ~= o[2] then
      return string.format("%s.%s is a %s (a %s is needed)", where, o[1], type(v), o[2])
    end
  end
  for _, f in ipairs(VERIFY_COUNTS) do
    local v = at(r, "verify." .. f)
    if v ~= nil and (not math.tointeger(v) or v < 0) then
      return string.format("%s.verify.%s is %s (a whole number of 0 or more is needed)", where, f, number_text(v))
    end
  end
  local ivs = r.intervals
  if ivs == nil then return nil end
  if type(ivs) ~= "table" or getmetatable(ivs) == OBJECT and next(ivs) ~= nil then
    return where .. ".intervals is not a list"
  end
  for i, iv in ipairs(ivs) do
    if type(iv) ~= "table" then
      return string.format("%s.intervals[%d] is a %s (an object is needed)", where, i, type(iv))
    end
    for _, k in ipairs(IV_FIELDS) do
      if iv[k] ~= nil and type(iv[k]) ~= "number" then
        return string.format("%s.intervals[%d].%s is a %s (a number is needed)", where, i, k, type(iv[k]))
      end
    end
  end
end

-- What each entry of a phase's `hosts` (one rank's figures, under MPI) may
-- hold, and the type it needs when it has it.
local HOST_FIELDS = { rank = "number", host = "string", ios = "number", iops = "number", mb_per_s = "number",
  bytes = "number", seconds = "number", p50_ns = "number", p99_ns = "number", max_ns = "number", mean_ns = "number",
  util_pct = "number", user_s = "number", sys_s = "number", errors = "number", failed = "boolean",
  interrupted = "boolean", error = "string" }
local CLUSTER_FIELDS = { "ranks", "start_skew_ns", "stopped_by", "rounds", "end_bytes", "end_ns", "interval_bytes" }

-- whether v is a list (a JSON array, or an empty object)
local function is_list(v)
  return type(v) == "table" and not (getmetatable(v) == OBJECT and next(v) ~= nil)
end

-- The first thing wrong with r's `hosts` and `cluster` (a run under MPI),
-- or nil: hosts a list of objects whose known fields have their types, a
-- rank and an error count whole numbers of 0 or more; cluster an object of
-- numbers.
local function cluster_problem(r, where)
  if r.hosts ~= nil then
    if not is_list(r.hosts) then return where .. ".hosts is not a list (one object per rank is needed)" end
    for i, h in ipairs(r.hosts) do
      local at_i = string.format("%s.hosts[%d]", where, i)
      if type(h) ~= "table" or is_list(h) and next(h) ~= nil then
        return string.format("%s is a %s (an object is needed)", at_i, type(h) == "table" and "list" or type(h))
      end
      for k, t in pairs(HOST_FIELDS) do
        if h[k] ~= nil and type(h[k]) ~= t then
          return string.format("%s.%s is a %s (a %s is needed)", at_i, k, type(h[k]), t)
        end
      end
      for _, k in ipairs({ "rank", "errors" }) do
        if h[k] ~= nil and (not math.tointeger(h[k]) or h[k] < 0) then
          return string.format("%s.%s is %s (a whole number of 0 or more is needed)", at_i, k, number_text(h[k]))
        end
      end
    end
  end
  if r.cluster == nil then return nil end
  if type(r.cluster) ~= "table" or getmetatable(r.cluster) ~= OBJECT then return where .. ".cluster is not an object" end
  for _, k in ipairs(CLUSTER_FIELDS) do
    local v = r.cluster[k]
    if v ~= nil and type(v) ~= "number" then
      return string.format("%s.cluster.%s is a %s (a number is needed)", where, k, type(v))
    end
  end
end

-- Figures no run can have below 0 (rates, times, latencies, sizes), and
-- of those the counts, which are whole: a file that says otherwise is
-- not a results file (a report would show it as if measured).
local WHOLE = { "errors", "ios", "read.errors", "write.errors", "read.ios", "write.ios", "read.bytes",
  "write.bytes", "trim.ios", "trim.bytes", "sync.ios" }
local MEASURES = { "iops", "mb_per_s", "mib_per_s", "seconds", "ramp_s", "workers", "qd", "cpu.util_pct",
  "cpu.user_s", "cpu.sys_s", "read.iops", "read.mb_per_s", "read.mib_per_s", "write.iops", "write.mb_per_s",
  "write.mib_per_s", "trim.iops" }
local LATS = { "lat", "read.lat", "write.lat", "trim.lat", "sync.lat" }

-- The first figure of r (at where) below 0, or a count that is not whole,
-- or nil: "phases[1].read.errors is 1.5 (a whole number of 0 or more is needed)".
local function figure_problem(r, where)
  local function bad(path, v, whole)
    if type(v) ~= "number" then return nil end
    if whole and not math.tointeger(v) or v < 0 then
      return string.format("%s.%s is %s (a %s of 0 or more is needed)", where, path, number_text(v),
        whole and "whole number" or "number")
    end
  end
  for _, path in ipairs(WHOLE) do
    local p = bad(path, at(r, path), true)
    if p then return p end
  end
  for _, path in ipairs(MEASURES) do
    local p = bad(path, at(r, path))
    if p then return p end
  end
  for _, path in ipairs(LATS) do
    local lat = at(r, path)
    if type(lat) == "table" then
      local keys = {}
      for k in pairs(lat) do if type(k) == "string" and k:match("_ns$") then keys[#keys + 1] = k end end
      table.sort(keys)
      for _, k in ipairs(keys) do
        local p = bad(path .. "." .. k, lat[k])
        if p then return p end
      end
    end
  end
  for i, iv in ipairs(type(r.intervals) == "table" and r.intervals or {}) do
    for _, k in ipairs(IV_FIELDS) do
      local p = bad(string.format("intervals[%d].%s", i, k), iv[k])
      if p then return p end
    end
  end
  for i, h in ipairs(type(r.hosts) == "table" and r.hosts or {}) do
    for _, k in ipairs({ "ios", "iops", "mb_per_s", "bytes", "seconds", "p50_ns", "p99_ns", "max_ns", "mean_ns",
      "util_pct", "user_s", "sys_s" }) do
      local p = bad(string.format("hosts[%d].%s", i, k), h[k], k == "ios" or k == "bytes")
      if p then return p end
    end
  end
end

-- The first thing wrong with phase r (a result read back), or nil.
local function phase_problem(r, where)
  if type(r) ~= "table" then return string.format("%s is a %s, not a result", where, type(r)) end
  for _, req in ipairs(REQUIRED) do
    local v = at(r, req[1])
    if type(v) ~= req[2] then
      return string.format("%s.%s is %s (a %s is needed)", where, req[1], v == nil and "missing" or "a " .. type(v),
        req[2])
    end
  end
  if type(r.target) ~= "string" and type(r.target) ~= "table" then
    return where .. ".target is missing (a path or a list of paths is needed)"
  end
  if type(r.target) == "table" then
    if getmetatable(r.target) == OBJECT and next(r.target) ~= nil then
      return where .. ".target is an object (a path or a list of paths is needed)"
    end
    for i, t in ipairs(r.target) do
      if type(t) ~= "string" then
        return string.format("%s.target[%d] is a %s (a path is needed)", where, i, type(t))
      end
    end
  end
  if not math.tointeger(r.errors) or r.errors < 0 then
    return string.format("%s.errors is %s (a whole number of 0 or more is needed)", where, number_text(r.errors))
  end
  local opt = optional_problem(r, where) or cluster_problem(r, where) or figure_problem(r, where)
  if opt then return opt end
  if r.streams ~= nil then
    if type(r.streams) ~= "table" then return where .. ".streams is not a list" end
    for i, st in ipairs(r.streams) do
      local p = phase_problem(st, string.format("%s.streams[%d]", where, i))
      if p then return p end
    end
  end
end

local visible, shown = util.shown, util.shown

--- Read and check the results file at path: { file, iomoon, machine,
-- phases }. what names the argument in messages ("iomoon report").
-- Raises an input error "FILE: what is wrong" for a file that cannot be
-- read, is not JSON, is not an iomoon document or lacks a field a report
-- needs.
function saved.load(path)
  local function fail(fmt, ...) errors.input("%s: " .. fmt, shown(path), ...) end
  local st, why = iomoon.stat(path)
  if not st then fail("%s", why) end
  if st.kind ~= "file" then fail("is a %s, not a results file", st.kind) end
  local f, err = io.open(path, "rb")
  if not f then fail("%s", err) end
  local text = f:read("a")
  f:close()
  if not text then fail("cannot be read") end
  -- an IOMeter results.csv (its lines start with ' or a row type, never {)
  -- what a file says is shown without a URL's password, as what a run measured
  local function redacted(doc)
    doc.phases, doc.machine = util.redacted(doc.phases), util.redacted(doc.machine)
    return doc
  end
  if text:find("^%s*'") then return redacted(iometer.load_results(path, text)) end
  local doc = json.decode(text, function(m) fail("%s (give a file written by --format json)", m) end)
  if type(doc) ~= "table" or type(doc.phases) ~= "table" or doc.iomoon == nil then
    fail("not an iomoon results document (no \"iomoon\" and \"phases\"; give a file written by --format json)")
  end
  if type(doc.iomoon) ~= "string" and type(doc.iomoon) ~= "number" then
    fail("\"iomoon\" is a %s (the version that wrote the file, a string, is needed)", type(doc.iomoon))
  end
  if getmetatable(doc.phases) == OBJECT and next(doc.phases) ~= nil then fail("\"phases\" is not a list") end
  for i, r in ipairs(doc.phases) do
    local p = phase_problem(r, string.format("phases[%d]", i))
    if p then fail("%s", p) end
  end
  if doc.machine ~= nil and type(doc.machine) ~= "table" then fail("\"machine\" is not an object") end
  return redacted({ file = path, iomoon = iomoon.redact(tostring(doc.iomoon)), machine = doc.machine,
    phases = doc.phases })
end

-- v copied through every level (a definition read back is plain data)
local function deep_copy(v)
  if type(v) ~= "table" then return v end
  local c = {}
  for k, x in pairs(v) do c[k] = deep_copy(x) end
  return c
end

-- One target of a definition with the rerun's options: the path replaced
-- by --target, --size given, and write permission from this command line
-- only (a saved allow_write or force is dropped: a file from elsewhere
-- must not grant writing here).
local function rerun_target(t, o)
  local path = o.target or (type(t) == "table" and t.path or t)
  local out = type(t) == "table" and deep_copy(t) or {}
  out.path, out.allow_write, out.force = path, nil, nil
  if o.size then out.size = o.size end
  if o["allow-write"] then out.allow_write = true end
  if o.force then out.force = true end
  if next(out, next(out)) == nil then return path end -- nothing but the path: as it was given
  return out
end

-- The targets of definition def (a phase or a stream) for the rerun;
-- where = "phase 'NAME'" for messages.
local function rerun_targets(def, o, where)
  local t = def.target
  if t == nil then
    if o.target then def.target = rerun_target(o.target, o) end
    return
  end
  local list = (type(t) == "table" and t.path == nil) and t or { t }
  if o.target and #list > 1 then
    errors.input("--target: %s ran on %d targets; --target names one (it replaces the target of every phase, "
      .. "and one for several would change the workload: run the definitions from a script instead)",
      where, #list)
  end
  local out = {}
  for i, x in ipairs(list) do out[i] = rerun_target(x, o) end
  def.target = (#out == 1 and list ~= t) and out[1] or out
end

-- A trace a saved definition names ({trace = PATH, format = F, records = N},
-- in place of the trace object it ran with) loaded again; a trace that now
-- loads another number of records (changed, or loaded with a device or
-- time window when it ran) is refused.
local function load_saved_trace(ref, where)
  local tr = iomoon.trace.load(ref.trace, { format = ref.format ~= "auto" and ref.format or nil })
  if ref.records and #tr ~= ref.records then
    errors.input("%s: the trace %s has %d records now, %d when it ran (changed, or loaded with a device or time "
      .. "window: replay it from a script)", where, visible(ref.trace), #tr, ref.records)
  end
  return tr
end

-- phase.replay of a saved definition back to trace objects: the trace
-- itself, or {trace = ..., speed = ...}.
local function restore_replay(def, where)
  local r = def.replay
  if type(r) ~= "table" then return end
  if type(r.trace) == "string" then
    def.replay = load_saved_trace(r, where)
  elseif type(r.trace) == "table" and type(r.trace.trace) == "string" then
    r.trace = load_saved_trace(r.trace, where)
  end
end

--- The phases of a saved run (saved.load's document) to run again, for
-- `iomoon rerun`: each phase's definition, copied; o (the command line's
-- options): `target` replaces every target (a phase or stream on several
-- is refused), `size` sets every target's size, and write permission is
-- o["allow-write"] and o.force only (a saved allow_write or force is
-- dropped). A trace a definition replays is loaded again. Input errors
-- name the phase; nothing is checked against the targets here (iomoon.check).
function saved.phases(doc, o)
  local phases = {}
  for i, r in ipairs(doc.phases) do
    local where = string.format("phase %d ('%s')", i, visible(r.name))
    if r.definition ~= nil and type(r.definition) ~= "table" then
      errors.input("%s: phases[%d].definition is a %s (an object is needed: the phase as it ran)", visible(doc.file), i,
        type(r.definition))
    end
    if type(r.definition) ~= "table" then
      errors.input("%s: %s has no definition (written by an iomoon that did not keep one; run it from its script)",
        visible(doc.file), where)
    end
    local def = deep_copy(r.definition)
    rerun_targets(def, o, where)
    for j, st in ipairs(type(def.streams) == "table" and def.streams or {}) do
      -- a stream that is not a table is left for iomoon.check to name
      if type(st) == "table" then rerun_targets(st, o, string.format("%s stream %d", where, j)) end
    end
    restore_replay(def, where)
    phases[i] = def
  end
  return phases
end

return saved
