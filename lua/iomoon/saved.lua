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
local suite = require "iomoon.suite"

local saved = {}

-- JSON objects come back with this metatable (json.decode), so that an
-- empty one ({} in the file) is told from an empty list.
local OBJECT = json.OBJECT

-- What a result holds, table by table (iomoon.result_fields: the core's
-- own description, src/lua/lua_result_fields.c). A phase read back must
-- hold the fields marked `saved` (every report format reads them); any
-- described field it has must have its type, a count must be a whole
-- number of 0 or more and a measure 0 or more.
local FIELDS = iomoon.result_fields

-- A number as a message shows it (%g: 1e+308, not 309 digits).
local function number_text(v)
  return math.type(v) == "float" and string.format("%g", v) or tostring(v)
end

-- whether v is a list (a JSON array, or an empty object)
local function is_list(v)
  return type(v) == "table" and not (getmetatable(v) == OBJECT and next(v) ~= nil)
end

-- whether v is an object (a JSON object, or an empty array)
local function is_object(v)
  return type(v) == "table" and (getmetatable(v) == OBJECT or next(v) == nil)
end

local visible, shown = util.shown, util.shown

local types_problem

-- The first thing wrong with the described table x held by field f (at
-- where): an object, or a list or map of objects.
local function table_problem(x, f, where)
  if f.entries == nil then
    if not is_object(x) then return where .. " is not an object" end
    return types_problem(x, f.table, where)
  end
  for k, e in (f.entries == "list" and ipairs or pairs)(x) do
    local at = f.entries == "list" and string.format("%s[%d]", where, k) or string.format("%s.%s", where, tostring(k))
    if not is_object(e) then
      return string.format("%s is a %s (an object is needed)", at, type(e) == "table" and "list" or type(e))
    end
    local p = types_problem(e, f.table, at)
    if p then return p end
  end
end

-- The first field of t (at where, described by FIELDS[d]) missing or of
-- the wrong type, or nil.
types_problem = function(t, d, where)
  for _, f in ipairs(FIELDS[d]) do
    local x, at = t[f.name], where .. "." .. f.name
    if x == nil then
      if f.saved then return string.format("%s is missing (a %s is needed)", at, f.type) end
    elseif f.entries == "list" and not is_list(x) then
      return at .. " is not a list (a list of objects is needed)"
    elseif f.table then
      local p = table_problem(x, f, at)
      if p then return p end
    elseif f.type ~= "any" and type(x) ~= f.type then
      return string.format("%s is a %s (%s is needed)", at, type(x), f.type == "table" and "an object" or "a " .. f.type)
    end
  end
end

-- The first figure of t (at where, described by FIELDS[d]) below 0, or a
-- count that is not whole, or nil: "phases[1].read.errors is 1.5 (a
-- whole number of 0 or more is needed)". Types are checked before.
local function figure_problem(t, d, where)
  for _, f in ipairs(FIELDS[d]) do
    local x, at = t[f.name], where .. "." .. f.name
    if type(x) == "number" and (f.count and not math.tointeger(x) or (f.count or f.measure) and x < 0) then
      return string.format("%s is %s (a %s of 0 or more is needed)", at, number_text(x),
        f.count and "whole number" or "number")
    elseif type(x) == "table" and f.table then
      local list = f.entries and x or { x }
      for k, e in (f.entries == "map" and pairs or ipairs)(list) do
        local p = figure_problem(e, f.table, f.entries == "list" and string.format("%s[%d]", at, k)
          or f.entries == "map" and string.format("%s.%s", at, tostring(k)) or at)
        if p then return p end
      end
    end
  end
end

-- The first thing wrong with r's target, or nil: a path or a list of paths.
local function target_problem(r, where)
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
end

-- The first of r's wall-clock times (started, ended) that is not ISO 8601
-- in UTC as iomoon writes it, or nil.
local function time_problem(r, where)
  for _, k in ipairs({ "started", "ended" }) do
    local v = r[k]
    if type(v) == "string" and not v:find("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.?%d*Z$") then
      return string.format("%s.%s is '%s' (a time as ISO 8601 in UTC is needed: 2026-12-01T19:05:32.123Z)", where, k,
        visible(v))
    end
  end
end

-- The first thing wrong with phase r (a result read back), or nil.
local function phase_problem(r, where)
  if type(r) ~= "table" then return string.format("%s is a %s, not a result", where, type(r)) end
  local p = types_problem(r, "result", where) or target_problem(r, where) or figure_problem(r, "result", where)
    or time_problem(r, where)
  if p then return p end
  if r.streams ~= nil then
    if type(r.streams) ~= "table" then return where .. ".streams is not a list" end
    for i, st in ipairs(r.streams) do
      p = phase_problem(st, string.format("%s.streams[%d]", where, i))
      if p then return p end
    end
  end
end


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
  if doc.command ~= nil and type(doc.command) ~= "string" then
    fail("\"command\" is a %s (the command line that ran, a string, is needed)", type(doc.command))
  end
  return redacted({ file = path, iomoon = iomoon.redact(tostring(doc.iomoon)), machine = doc.machine,
    command = doc.command and iomoon.redact(doc.command), phases = doc.phases })
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
    if type(def.files) == "table" then -- a files phase: --target is the directory of its tree
      if o.target then def.files.dir = o.target end
    else
      rerun_targets(def, o, where)
    end
    for j, st in ipairs(type(def.streams) == "table" and def.streams or {}) do
      -- a stream that is not a table is left for iomoon.check to name
      if type(st) == "table" then rerun_targets(st, o, string.format("%s stream %d", where, j)) end
    end
    restore_replay(def, where)
    phases[i] = def
  end
  return phases
end

-- what the overrides of `iomoon rerun` may change, as its message says them
local OVERRIDDEN = { { "duration", "--time" }, { "ramp", "--ramp" }, { "qd", "--qd" }, { "workers", "--workers" },
  { "engine", "--engine" }, { "direct", "--buffered" }, { "ios", "--ios" } }

-- a definition's value as the rerun's message shows it
local function value_text(v)
  if v == nil then return "none" end
  if v == true then return "O_DIRECT" elseif v == false then return "buffered" end
  return visible(tostring(v))
end

--- The phases of a rerun with the command line's overrides (iomoon.suite's:
-- time, ramp, qd, workers, engine, direct, ios; suite.apply, names
-- included) applied, and what they changed, a phrase per option:
-- "--qd 4: qd 1 -> 4 (phase 1), 32 -> 4 (phases 2, 3)". Nothing given:
-- the phases as they were, no phrase.
function saved.overridden(phases, ov)
  local any = false
  for _, k in ipairs(OVERRIDDEN) do any = any or ov[k[1] == "duration" and "time" or k[1]] ~= nil end
  if not any then return phases, {} end
  local out, seen = {}, {}
  for i, p in ipairs(phases) do
    out[i] = suite.apply(p, ov)
    for _, k in ipairs(OVERRIDDEN) do
      local a, b = p[k[1]], out[i][k[1]]
      if tostring(a) ~= tostring(b) then
        local key = k[2] .. "\0" .. value_text(a) .. "\0" .. value_text(b)
        if not seen[key] then
          seen[key] = { opt = k[2], field = k[1], from = value_text(a), to = value_text(b), phases = {} }
          seen[#seen + 1] = seen[key]
        end
        table.insert(seen[key].phases, i)
      end
    end
  end
  local by_opt, order = {}, {}
  for _, c in ipairs(seen) do
    if not by_opt[c.opt] then by_opt[c.opt] = {}; order[#order + 1] = c.opt end
    local ps = c.phases
    table.insert(by_opt[c.opt], string.format("%s %s -> %s (phase%s %s)", c.field, c.from, c.to,
      #ps == 1 and "" or "s", table.concat(ps, ", ")))
  end
  local changes = {}
  for _, k in ipairs(order) do changes[#changes + 1] = k .. ": " .. table.concat(by_opt[k], ", ") end
  return out, changes
end

return saved
