-- iomoon.suite: suites of phases: shared defaults, cartesian expansion,
-- queue-depth cycling, and running them with overrides from the command line.
--
-- A suite file (bench-suites/NAME.lua, or any path) returns a table:
--   {
--     name = "iometer-matrix", description = "one line for `iomoon list`",
--     source = "where the numbers come from",
--     size = "8g",                       -- test area when the target is created
--     defaults = { qd = 16, duration = "30s" },   -- every phase starts from these
--     verdict = "jetstress",             -- a pass/fail rule (iomoon.report.verdict)
--     phases = { phase, ... },           -- or function(opts) return { phase, ... } end
--   }
-- A plan that decides as it goes (iomoon.pts: rounds until steady state)
-- gives check(opts) and run(opts) instead of phases, and may take options
-- of its own on the command line: options = { NAME = "value" | "flag" },
-- whose values reach it as opts.options.
-- opts carries what the command line gave: target, and time, ramp, qd,
-- engine, workers, direct when given (nil otherwise), and region (the
-- nominal region of the null and sim engines without a target); suite.run
-- adds area_bytes, the size of the test area, for phases that cover all of it.

local iomoon = require "iomoon"

local suite = {}

local errors = require "iomoon.errors"
local util = require "iomoon.util"
local iometer = require "iomoon.iometer"
local input_error = errors.input

--- Cartesian expansion, vdbench's for*: one phase per combination (or one
-- stream: the list may be a phase's `streams`).
-- axes maps a phase field to its list of values; axes.order lists the fields
-- from the outermost loop to the innermost (default: the fields sorted by
-- name). Each phase is a copy of `base` with one value of every axis.
--   suite.for_each{ bs = {"4k", "16k"}, read = {100, 0}, order = {"bs", "read"} }
--   -> {bs="4k",read=100}, {bs="4k",read=0}, {bs="16k",read=100}, {bs="16k",read=0}
function suite.for_each(axes, base)
  local order = axes.order
  if not order then
    order = {}
    for k in pairs(axes) do order[#order + 1] = k end
    table.sort(order)
  end
  for _, k in ipairs(order) do
    local v = axes[k]
    if type(v) ~= "table" or #v == 0 then
      input_error("for_each.%s: give a non-empty list of values", tostring(k))
    end
  end
  local out = {}
  local function expand(i, p)
    if i > #order then out[#out + 1] = p; return end
    for _, v in ipairs(axes[order[i]]) do
      local q = util.copy(p)
      q[order[i]] = v
      expand(i + 1, q)
    end
  end
  expand(1, util.copy(base))
  return out
end

--- IOMeter's queue-depth cycling: from, from*2, ... up to `to` (1, 2, 4 ... 256).
function suite.qd_cycle(from, to, factor)
  from, to, factor = from or 1, to or 256, factor or 2
  if from < 1 or to < from or factor <= 1 then
    input_error("qd_cycle: from %s to %s by x%s is not a cycle (1 <= from <= to, factor > 1)", from, to, factor)
  end
  local out, qd = {}, from
  while qd <= to do
    out[#out + 1] = math.floor(qd)
    qd = qd * factor
  end
  return out
end

--- `streams` for `engine` (a suite's --engine; nil or "auto": the engine
-- auto picks here): on psync, which does one I/O at a time, each stream
-- keeps its concurrency as workers x qd workers at QD 1 (a stream's own qd
-- is not --qd's to change). Returns streams, changed in place.
function suite.for_engine(streams, engine)
  if engine == nil or engine == "auto" then engine = select(2, iomoon.engines()) end
  if engine == "psync" then
    for _, st in ipairs(streams) do st.workers, st.qd = (st.workers or 1) * (st.qd or 1), 1 end
  end
  return streams
end

--- A part of a test area of `bytes`: the fraction `of` of it (0.1: a log's
-- tenth), in whole MiB and at least 1 MiB, for the regions of a model.
function suite.share(bytes, of)
  local MiB = 1 << 20
  return math.max(MiB, math.floor(bytes * of) // MiB * MiB)
end

--- A test name as the IOMeter sheets write it: "4K; 100% Read; 0% random".
function suite.iometer_name(p)
  local bs = type(p.bs) == "number" and p.bs or iomoon.size(p.bs)
  return string.format("%s; %g%% Read; %g%% random", util.iometer_size(bs), p.read or 100, p.random or 0)
end

--- The directory of the ready suites shipped with iomoon.
function suite.dir()
  return (iomoon.lua_dir or "lua") .. "/../bench-suites"
end

--- Names of the ready suites, sorted.
function suite.list()
  local names = {}
  local p = io.popen('ls "' .. suite.dir() .. '" 2>/dev/null')
  if p then
    for f in p:lines() do
      local n = f:match("^(.-)%.lua$")
      if n then names[#names + 1] = n end
    end
    p:close()
  end
  table.sort(names)
  return names
end

-- The fields a suite table may have.
local SUITE_FIELDS = { name = "string", description = "string", source = "string", size = { "string", "number" },
  defaults = "table", phases = { "table", "function" }, name_width = "number", file = "string", verdict = "string",
  options = "table", check = "function", run = "function" }

--- Load a suite by name or path; raises an input error listing the ready ones.
-- A path ending in .icf is an IOMeter configuration file (iomoon.iometer;
-- o.skip_unsupported skips what iomoon does not do).
function suite.load(name_or_path, o)
  if name_or_path:lower():match("%.icf$") then return iometer.suite(name_or_path, o) end
  if o and o.skip_unsupported then input_error("--skip-unsupported: only for an IOMeter .icf file") end
  if o and o.manager then input_error("--manager: only for an IOMeter .icf file (the manager whose workers run here)") end
  local path = name_or_path
  if not name_or_path:find("/") and not name_or_path:find("%.lua$") then
    path = suite.dir() .. "/" .. name_or_path .. ".lua"
  end
  local f = io.open(path, "r")
  if not f then
    input_error("suite '%s' does not exist (ready suites: %s; or give a file path)",
      name_or_path, table.concat(suite.list(), ", "))
  end
  f:close()
  local chunk, err = loadfile(path)
  if not chunk then input_error("suite %s: %s", path, err) end
  local s = chunk()
  if type(s) ~= "table" or (type(s.phases) ~= "function" and type(s.phases) ~= "table"
      and not (type(s.check) == "function" and type(s.run) == "function")) then
    input_error("suite %s: the file must return {name=, phases=...} (a list, or a function(opts); or check= and run=)", path)
  end
  errors.check_fields(s, "suite " .. path, SUITE_FIELDS)
  s.name = s.name or name_or_path
  s.file = path
  return s
end

--- A phase with the suite's defaults under it and the command line's
-- overrides over it.
-- The options suite.apply, suite.phases and suite.run take.
local OPTS_FIELDS = { target = "any", time = "any", ramp = "any", qd = "number", engine = "string",
  workers = "number", direct = "boolean", progress = "boolean", area_bytes = "number",
  region = "any", ios = "number", verify_state = "string", options = "table", quiet = "boolean" }

-- Whether a phase ends by a quota rather than by time: its own ios or
-- bytes, or, with streams, every stream's.
local function quota_ended(p)
  if p.bytes or p.ios then return true end
  if type(p.streams) ~= "table" or #p.streams == 0 then return false end
  for _, st in ipairs(p.streams) do
    if type(st) ~= "table" or not (st.bytes or st.ios) then return false end
  end
  return true
end

-- --qd and --workers, asked on the command line, hold for every stream of
-- a phase too (a stream's own qd and workers are the suite's settings, and
-- the command line overrides those); --direct is the phase's default, which
-- a stream that gives its own keeps.
local function apply_streams(p, opts)
  if type(p.streams) ~= "table" or not (opts.qd or opts.workers) then return end
  local streams = {}
  for i, st in ipairs(p.streams) do
    streams[i] = util.copy(st)
    if opts.qd then streams[i].qd = opts.qd end
    if opts.workers then streams[i].workers = opts.workers end
  end
  p.streams = streams
end

-- The overrides a row's name must show when they changed what the phase
-- (or the suite's defaults) set: key, the value a phase without it runs
-- with (none: --engine's auto and --buffered's O_DIRECT default are said
-- by the line above the table, not a change of the phase's own), and the
-- override as typed.
local SHOWN = {
  { key = "qd", default = 1, flags = { "--qd" }, text = function(v) return "--qd " .. tostring(v) end },
  { key = "workers", default = 1, flags = { "--workers" }, text = function(v) return "--workers " .. tostring(v) end },
  { key = "engine", flags = { "--engine" }, text = function(v) return "--engine " .. tostring(v) end },
  { key = "direct", flags = { "--direct", "--buffered" }, text = function(v) return v and "--direct" or "--buffered" end },
}

-- a name that already shows overrides (a saved run's, rerun with others):
-- "X (--qd 4, --workers 2)" is "X" and { "--qd 4", "--workers 2" }
local function split_shown(name)
  local base, list = name:match("^(.-) %((%-%-[^()]*)%)$")
  if not base then return name, {} end
  local items = {}
  for item in (list .. ", "):gmatch("(.-), ") do items[#items + 1] = item end
  return base, items
end

-- `shown` with field f's override set to `text`, in the place of the one
-- it had ("--workers 2", then --workers 1: "--workers 1"), else last
local function put_field(shown, f, text)
  local out, put = {}, false
  for _, item in ipairs(shown) do
    local flag, mine = item:match("^(%-%-%S+)"), false
    for _, fl in ipairs(f.flags) do mine = mine or flag == fl end
    if not mine then
      out[#out + 1] = item
    elseif not put then
      out[#out + 1], put = text, true
    end
  end
  if not put then out[#out + 1] = text end
  return out
end

-- whether field f of a phase (or stream) went from what `before` set to
-- another value in `after`
local function changed(before, after, f)
  local old = before[f.key]
  if old == nil then old = f.default end
  return old ~= nil and after[f.key] ~= nil and old ~= after[f.key]
end

-- whether f changed in the phase or in one of its streams
local function changed_anywhere(before, after, f)
  if changed(before, after, f) then return true end
  local bs = type(before.streams) == "table" and before.streams or {}
  for i, st in ipairs(type(after.streams) == "table" and after.streams or {}) do
    if type(st) == "table" and type(bs[i]) == "table" and changed(bs[i], st, f) then return true end
  end
  return false
end

--- The name of phase `after`, which is `before` with the command line's
-- overrides: a name that states the queue depth ("QD 32", "(QD 1)") gets
-- the one it ran at; any other override that changed the phase's own
-- setting is shown after it: "Exchange 2007 (--qd 4)". A name saying
-- what ran stays as it is.
function suite.name_of(before, after, opts)
  if type(after.name) ~= "string" then return after.name end
  local name, shown = split_shown(after.name)
  for _, f in ipairs(SHOWN) do
    local v = opts[f.key]
    if v ~= nil and changed_anywhere(before, after, f) then
      if f.key == "qd" and type(after.streams) ~= "table" and name:find("QD%s*%d+") then
        name = name:gsub("QD(%s*)%d+", function(sp) return "QD" .. sp .. tostring(v) end)
      else
        shown = put_field(shown, f, f.text(v))
      end
    end
  end
  return #shown > 0 and string.format("%s (%s)", name, table.concat(shown, ", ")) or name
end

-- A phase or stream that issues as fast as it can: no rate, schedule,
-- think time or replay holds it (--ios leaves the others to their time:
-- their pace, not the disk, says how long they take).
local function closed_loop(p)
  return type(p) == "table" and p.rate == nil and p.schedule == nil and p.think == nil and p.replay == nil
end

-- A files phase (doc/lua-api.md, "Files phases") under a suite: --target
-- is the directory of its tree (--allow-write lets it be made beside other
-- files); --time and --ios end only its mixes (a pass over the tree is
-- its own length, and a stat after a create cut short would count
-- errors); --qd, --engine, --workers and --direct as for any phase.
local function apply_files(p, opts)
  local t = opts.target
  local files = util.copy(p.files)
  if not files.dir then files.dir = type(t) == "table" and t.path or t end
  if type(t) == "table" and t.allow_write and files.allow_write == nil then files.allow_write = true end
  p.files = files
  if p.ops and opts.time and not p.ios then p.duration = opts.time end
  if p.ops and opts.ios then p.ios, p.duration = opts.ios, nil end
  local before = util.copy(p)
  for _, k in ipairs { "qd", "engine", "workers", "direct" } do
    if opts[k] ~= nil then p[k] = opts[k] end
  end
  if opts.qd and opts.qd > 1 and not opts.engine then p.engine = "io_uring" end
  p.name = suite.name_of(before, p, opts)
  return p
end

function suite.apply(phase, opts, defaults)
  if type(phase) ~= "table" then input_error("suite phase: a %s is not a phase table", type(phase)) end
  local p = util.merge(defaults, phase)
  opts = errors.check_fields(opts or {}, "suite options", OPTS_FIELDS)
  if p.files ~= nil then return apply_files(p, opts) end
  p.target = p.target or opts.target
  -- --time shortens timed phases; a phase that covers a size covers it;
  -- --ios ends each timed phase (each of its streams) after that many
  -- I/Os too, whichever comes first: a smoke test a slow disk cannot fail
  if opts.time and not quota_ended(p) then p.duration = opts.time end
  if opts.ios and not quota_ended(p) and not p.verify_only then
    if type(p.streams) == "table" and #p.streams > 0 then
      local streams = {}
      for i, st in ipairs(p.streams) do streams[i] = closed_loop(st) and util.merge(st, { ios = opts.ios }) or st end
      p.streams = streams
    elseif closed_loop(p) then
      p.ios = opts.ios
    end
  end
  if opts.ramp then p.ramp = opts.ramp end
  local before = util.copy(p)
  if opts.qd then p.qd = opts.qd end
  if opts.engine then p.engine = opts.engine end
  if opts.workers then p.workers = opts.workers end
  if opts.direct ~= nil then p.direct = opts.direct end
  if opts.region and p.region == nil then p.region = opts.region end
  -- --verify-state: where every phase that verifies with crc32c keeps its state
  if opts.verify_state and p.verify == "crc32c" then p.verify_state = opts.verify_state end
  apply_streams(p, opts)
  p.name = suite.name_of(before, p, opts)
  return p
end

-- The size of the test area: the target's, or what its option table asks.
local function area_bytes(target)
  if type(target) == "userdata" then return target:size() end
  if type(target) == "table" and target.size then return iomoon.size(target.size) end
  if type(target) == "table" and target.path then target = target.path end
  if type(target) == "string" then
    local ok, t = pcall(iomoon.target, { path = target, create = false, fill = false })
    if ok then return t:size() end
  end
  return nil
end

--- The phases a suite will run for these options, in order.
function suite.phases(s, opts)
  opts = opts or {}
  opts.area_bytes = opts.area_bytes or area_bytes(opts.target)
  local list = type(s.phases) == "function" and s.phases(opts) or s.phases
  if type(list) ~= "table" then
    input_error("suite %s: phases gave a %s, not a list of phases", tostring(rawget(s, "name")), type(list))
  end
  local out, verifies = {}, false
  for i, p in ipairs(list) do
    out[i] = suite.apply(p, opts, s.defaults)
    -- a pass/fail suite: every phase names its rule (iomoon.report.verdict)
    if s.verdict then out[i].meta = util.merge(out[i].meta or {}, { verdict = s.verdict }) end
    verifies = verifies or out[i].verify == "crc32c"
  end
  if opts.verify_state and not verifies then
    input_error("--verify-state: suite %s has no phase that verifies with crc32c (the directory holds the state "
      .. "of data written with verify = \"crc32c\"; leave --verify-state out)", tostring(rawget(s, "name")))
  end
  return out
end

--- The table's first column for a suite run with these options: the
-- suite's name_width, widened to its longest phase name (at most 64), so
-- that a name the command line's overrides lengthened is not cut.
function suite.name_width(s, opts)
  local width = s.name_width or 36
  if s.check and not s.phases then return width end
  local ok, list = pcall(suite.phases, s, util.copy(opts))
  for _, p in ipairs(ok and list or {}) do
    if type(p.name) == "string" then width = math.max(width, math.min(#p.name, 64)) end
  end
  return width
end

local function seconds(d)
  if d == nil then return 0 end
  return iomoon.duration(d) / 1e9
end

--- Check every phase of a suite for these options (iomoon.check: every
-- check iomoon.run makes, touching nothing) before any of them runs; returns
-- the phases. An input error says which phase it is about.
function suite.check(s, opts)
  errors.check_fields(s, "suite " .. tostring(rawget(s, "name") or "table"), SUITE_FIELDS)
  if s.check and not s.phases then
    opts.area_bytes = opts.area_bytes or area_bytes(opts.target)
    s.check(opts)
    return {}
  end
  local phases = suite.phases(s, opts)
  local written -- an earlier phase writes with crc32c: the state an after_crash pass needs is made then
  for i, p in ipairs(phases) do
    local ok, e = pcall(iomoon.check, p, written and { written_before = true } or nil)
    written = written or (p.verify == "crc32c" and not p.verify_only)
    if not ok then
      if type(e) == "table" and type(e.msg) == "string" then
        local where = string.format(" (suite %s, phase %d of %d%s)", tostring(s.name), i, #phases,
          p.name and ": " .. tostring(p.name) or "")
        e.msg = e.msg .. where
        if e.what then e.what = e.what .. where end
      end
      error(e, 0)
    end
  end
  return phases
end

--- Run every phase of a suite; returns the list of results. Every phase is
-- checked first (suite.check), unless `phases` is what suite.check returned.
-- Results reach a script as they come through iomoon.on_result. A
-- progress line shows the suite's position and the time left in it.
function suite.run(s, opts, phases)
  opts = errors.check_fields(opts or {}, "suite options", OPTS_FIELDS)
  phases = phases or suite.check(s, opts)
  if s.run and not s.phases then return s.run(opts) end
  local left = 0
  for _, p in ipairs(phases) do left = left + seconds(p.ramp) + (p.duration and seconds(p.duration) or 0) end
  local results = {}
  for i, p in ipairs(phases) do
    left = left - seconds(p.ramp) - (p.duration and seconds(p.duration) or 0)
    iomoon.set_progress(opts.progress ~= false, string.format("%d/%d", i, #phases), left)
    local r = iomoon.run(p)
    results[#results + 1] = r
    if iomoon.interrupted() then break end
  end
  iomoon.set_progress(opts.progress ~= false)
  return results
end

return suite
