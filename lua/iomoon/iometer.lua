-- iomoon.iometer: IOMeter configuration files (.icf) read as iomoon suites
-- (doc/import.md, "IOMeter"): `iomoon suite FILE.icf`, `iomoon convert
-- FILE.icf`, and IOMeter's results.csv read back (iomoon.iometer.results).
--
-- The grammar is IOMeter's own (its ICF_ifstream, CPageSetup::LoadConfig,
-- AccessSpecList::LoadConfigNew, Manager and Worker::LoadConfig): a
-- "Version" line, then sections of comment lines (starting with ') each
-- followed by one line of data. Read here: "Version 1.1.0" (and later
-- major.minor.sub versions) and the dated versions from 1998.05.21 on (the
-- first with named access specifications: 2003.12.16-post, 2004.07.30,
-- 2006.07.27, 2008.06.18-RC2, ...). The test cycling follows IOMeter's
-- CGalileoView (CycleTargets, CycleWorkers, CycleQueue, ...): for each
-- access specification in turn (the k-th assigned to each worker), every
-- step of the cycle is one test, and one test is one iomoon phase.

local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local util = require "iomoon.util"
local workers = require "iomoon.iometer.workers"
local plan = require "iomoon.iometer.plan"
local convert = require "iomoon.iometer.convert"
local results = require "iomoon.iometer.results"
local fio = require "iomoon.fio"

local iometer = {}

local input_error = errors.input

local shown, trim = util.shown, util.trim

local function starts(s, prefix) return s:sub(1, #prefix):lower() == prefix:lower() end

local function same(a, b) return a:lower() == b:lower() end

-- CP1252's 0x80-0x9f (0xa0-0xff are Latin-1's, U+00A0-U+00FF); the five
-- bytes it leaves undefined are U+FFFD.
local cp1252_c1 = {
  0x20ac, 0xfffd, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0xfffd,
  0x017d, 0xfffd, 0xfffd, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0xfffd, 0x017e, 0x0178,
}

local function utf16(text, little)
  local out, i = {}, 1
  while i + 1 <= #text do
    local a, b = text:byte(i, i + 1)
    local u = little and a + b * 256 or a * 256 + b
    i = i + 2
    if u >= 0xd800 and u <= 0xdbff and i + 1 <= #text then -- a surrogate pair
      local c, d = text:byte(i, i + 1)
      local lo = little and c + d * 256 or c * 256 + d
      if lo >= 0xdc00 and lo <= 0xdfff then u, i = 0x10000 + (u - 0xd800) * 0x400 + (lo - 0xdc00), i + 2 end
    end
    out[#out + 1] = utf8.char((u >= 0xd800 and u <= 0xdfff) and 0xfffd or u)
  end
  return table.concat(out)
end

--- An IOMeter file's text (an .icf, a results.csv) as UTF-8: as its byte
-- order mark says (UTF-8, UTF-16), as it is when it is UTF-8, else as
-- CP1252, the code page IOMeter on Windows writes in (a manager's name
-- "Größe" is the bytes f6 df there).
function iometer.text(text)
  if text:sub(1, 3) == "\239\187\191" then text = text:sub(4)
  elseif text:sub(1, 2) == "\255\254" then return utf16(text:sub(3), true)
  elseif text:sub(1, 2) == "\254\255" then return utf16(text:sub(3), false) end
  if utf8.len(text) then return text end
  return (text:gsub("[\128-\255]", function(c)
    local b = c:byte()
    return utf8.char(b < 0xa0 and cp1252_c1[b - 0x7f] or b)
  end))
end

-- A reader over the lines of a file, with IOMeter's GetPair.
local function reader(text, path)
  local r = { lines = {}, i = 1, path = path }
  text = iometer.text(text)
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do r.lines[#r.lines + 1] = trim((l:gsub("\r$", ""))) end
  function r.fail(line, fmt, ...)
    input_error("%s:%d: " .. fmt, shown(path), line, ...)
  end
  function r.next()
    local l = r.lines[r.i]
    r.i = r.i + 1
    return l, r.i - 1
  end
  function r.peek() return r.lines[r.i] end
  -- key (a comment line) and value (the next data line); an End or
  -- Version comment has no value. Extra comment lines are skipped.
  function r.pair()
    local key, kline = r.next()
    if key == nil then return nil end
    if key:sub(1, 1) ~= "'" then r.fail(kline, "expected a ' comment line, found '%s'", shown(key)) end
    if starts(key, "'End") or starts(key, "'Version") then return key, nil, kline end
    while r.peek() and r.peek():sub(1, 1) == "'" do
      local p = r.peek()
      if starts(p, "'End") or starts(p, "'Version") then return key, "", kline end
      r.i = r.i + 1
    end
    local v, vline = r.next()
    if v == nil then r.fail(kline, "%s: the file ends before its value", shown(key)) end
    return key, v, vline
  end
  -- to the line after the first that starts with `marker`; false if none
  function r.skip_to(marker)
    while r.i <= #r.lines do
      local l = r.next()
      if starts(l, marker) then return true end
    end
    return false
  end
  return r
end

-- The first n integers of s (IOMeter's ExtractFirstInt, repeated).
local function ints(r, s, n, line, what)
  local out = {}
  for d in s:gmatch("%-?%d+") do
    out[#out + 1] = math.tointeger(tonumber(d)) or r.fail(line, "%s: '%s' is too large", what, d)
    if #out == n then return out end
  end
  r.fail(line, "%s: expected %d whole numbers, found '%s'", what, n, shown(s))
end

--- The version of the first line: { text, number } with IOMeter's
-- numbering (1998.10.08 -> 19981008; 1.1.0 -> 10000100000).
local function version(r)
  local l, line = r.next()
  local a, b, c = (l or ""):match("^[Vv]ersion%s+(%d+)%.(%d+)%.(%d+)")
  if not a then r.fail(line or 1, "not an IOMeter file (the first line is not \"Version 1.1.0\" or a dated version)") end
  a, b, c = tonumber(a), tonumber(b), tonumber(c)
  local num = a > 1900 and a * 10000 + b * 100 + c or a * 10000000000 + b * 100000 + c
  if num == 32697 then num = 19980105 end -- IOMeter's special case, "3.26.97"
  if num < 19980521 then
    r.fail(line, "version %s: files older than 1998.05.21 (access specifications without names) are not read; "
      .. "open and save it in IOMeter 1.1 first", trim(l:sub(8)))
  end
  return { text = trim(l:sub(8)), number = num }
end

-- IOMeter's test types: number -> name (iomoon.iometer.plan's, which cycles them)
iometer.TEST_TYPES = plan.TEST_TYPES

-- A cycling line: start [end] step, LINEAR or EXPONENTIAL (or 0/1).
local function cycling(r, v, line, what, with_end)
  local n = ints(r, v, with_end and 3 or 2, line, what)
  local word = v:match("(%a+)%s*$")
  local exp
  if word and same(word, "LINEAR") then exp = false
  elseif word and same(word, "EXPONENTIAL") then exp = true
  else
    local last = tonumber(v:match("(%d+)%s*$"))
    if last == 0 or last == 1 then exp = last == 1
    else r.fail(line, "%s: the step type '%s' is neither LINEAR nor EXPONENTIAL", what, shown(v)) end
  end
  -- IOMeter turns a start or step of 0 into 1
  local c = { start = math.max(1, n[1]), step = math.max(1, n[#n]), exponential = exp }
  if with_end then c["end"] = math.max(1, n[2]) end
  return c
end

-- 'TEST SETUP: run time, ramp, cycling, test type.
local function test_setup(r, ver)
  local t = { description = "", run_s = 0, ramp_s = 0, type = 0,
    workers = { start = 1, step = 1, exponential = false }, targets = { start = 1, step = 1, exponential = false },
    queue = { start = 1, ["end"] = 32, step = 2, exponential = true } }
  if not r.skip_to("'TEST SETUP") then r.i = 2; return t end
  while true do
    local key, v, line = r.pair()
    if not key then r.fail(#r.lines, "the TEST SETUP section has no 'END test setup") end
    if same(key, "'END test setup") then break
    elseif same(key, "'Test Description") then t.description = v
    elseif same(key, "'Run Time") then
      local n = ints(r, v, 3, line, "Run Time (hours minutes seconds)")
      t.run_s, t.run_line = n[1] * 3600 + n[2] * 60 + n[3], line
    elseif starts(key, "'Ramp Up Time") then t.ramp_s = ints(r, v, 1, line, "Ramp Up Time")[1]
    elseif same(key, "'Worker Cycling") then t.workers = cycling(r, v, line, "Worker Cycling", false)
    elseif same(key, "'Disk Cycling") then t.targets = cycling(r, v, line, "Disk Cycling", false)
    elseif same(key, "'Queue Depth Cycling") then t.queue = cycling(r, v, line, "Queue Depth Cycling", true)
    elseif same(key, "'Test Type") then
      local word = trim(v):upper()
      t.type = plan.TEST_TYPE[word] or math.tointeger(tonumber(word))
      if not t.type or not iometer.TEST_TYPES[t.type] then
        r.fail(line, "Test Type: '%s' is not one of NORMAL, CYCLE_TARGETS, CYCLE_WORKERS, INCREMENT_TARGETS_PARALLEL, "
          .. "INCREMENT_TARGETS_SERIAL, CYCLE_WORKERS_AND_TARGETS, CYCLE_OUTSTANDING_IOS, "
          .. "CYCLE_OUTSTANDING_IOS_AND_TARGETS", shown(v))
      end
    elseif same(key, "'Default Disk Workers to Spawn") or same(key, "'Default Workers to Spawn") then
      -- what the GUI spawns on a manager that logs in: a number, or one per CPU
      local word = trim(v):upper()
      t.spawn_disk = word == "NUMBER_OF_CPUS" and word or math.tointeger(tonumber(word))
      if t.spawn_disk == nil or (t.spawn_disk ~= "NUMBER_OF_CPUS" and t.spawn_disk < 0) then
        r.fail(line, "%s: '%s' is not a number of workers or NUMBER_OF_CPUS", trim(key:sub(2)), shown(v))
      end
    elseif same(key, "'Default Network Workers to Spawn") or same(key, "'Record Results") then
      -- what the GUI does when managers log in, and which rows results.csv gets
    elseif ver.number >= 19990217 then
      r.fail(line, "TEST SETUP: unknown line %s (IOMeter refuses it too)", shown(key))
    else
      break -- files before 1999.02.17 have no 'End test setup
    end
  end
  return t
end

-- One access specification's lines, "size,% of size,% reads,% random,delay,burst,align,reply".
local function spec_lines(r, spec)
  local total = 0
  while r.peek() and r.peek():sub(1, 1) ~= "'" do
    local l, line = r.next()
    if l ~= "" then
      local f = {}
      for d in (l .. ","):gmatch("([^,]*),") do f[#f + 1] = trim(d) end
      local n = {}
      for k = 1, 8 do
        n[k] = f[k] == nil and ({ 0, 0, 0, 0, 0, 1, 0, 0 })[k] or math.tointeger(tonumber(f[k]))
        if n[k] == nil or (k <= 6 and f[k] == nil) then
          r.fail(line, "access spec '%s': '%s' is not size,%% of size,%% reads,%% random,delay,burst[,align,reply] "
            .. "in whole numbers", shown(spec.name), shown(l))
        end
      end
      local x = { size = n[1], of_size = n[2], reads = n[3], random = n[4], delay = n[5], burst = n[6],
        align = n[7], reply = n[8], line = line }
      for _, k in ipairs({ "of_size", "reads", "random" }) do
        if x[k] < 0 or x[k] > 100 then
          r.fail(line, "access spec '%s': %s %d is not a percentage (0 to 100)", shown(spec.name), k:gsub("_", " "), x[k])
        end
      end
      if x.size <= 0 then r.fail(line, "access spec '%s': size %d is not a transfer size (bytes > 0)", shown(spec.name), x.size) end
      if x.delay < 0 or x.burst < 0 or x.align < 0 or x.reply < 0 then
        r.fail(line, "access spec '%s': delay, burst, align and reply must be >= 0", shown(spec.name))
      end
      total = total + x.of_size
      spec.lines[#spec.lines + 1] = x
    end
  end
  if total ~= 100 then
    r.fail(spec.line, "access spec '%s': its %% of size add up to %d, not 100", shown(spec.name), total)
  end
end

-- 'ACCESS SPECIFICATIONS: { list of specs, by_name }.
local function access_specs(r)
  local specs = { list = {}, by_name = {} }
  r.i = 1
  if not r.skip_to("'ACCESS SPECIFICATIONS") then return specs end
  while true do
    local key, v, line = r.pair()
    if not key then r.fail(#r.lines, "the ACCESS SPECIFICATIONS section has no 'END access specifications") end
    if same(key, "'END access specifications") then break end
    if not same(key, "'Access specification name,default assignment") then
      r.fail(line, "ACCESS SPECIFICATIONS: unknown line %s", shown(key))
    end
    -- the name is all before the last comma (IOMeter cuts at the first,
    -- and then cannot find a name with a comma in it)
    local name, assign = v:match("^(.*),%s*([%w_]*)%s*$")
    if not name then name, assign = v, "NONE" end
    name = trim(name)
    if name == "" then r.fail(line, "an access specification without a name") end
    -- the assignment was once written as a number (none, all, disk, network)
    assign = ({ ["0"] = "NONE", ["1"] = "ALL", ["2"] = "DISK", ["3"] = "NET" })[assign] or assign:upper()
    local spec = { name = name, assign = assign, line = line, lines = {} }
    local c, cline = r.next()
    if not c or c:sub(1, 1) ~= "'" then
      r.fail(cline or line, "access spec '%s': expected the 'size,%% of size,... comment line", shown(name))
    end
    spec_lines(r, spec)
    if not specs.by_name[name] then specs.list[#specs.list + 1] = spec end
    specs.by_name[name] = spec -- a later spec of the same name replaces it, as in IOMeter
    for i, s in ipairs(specs.list) do if s.name == name then specs.list[i] = spec end end
  end
  return specs
end

iometer._reader, iometer._ints = reader, ints

-- The worker and manager sections are read by iomoon.iometer.workers.

--- Parse the .icf text (from path, for messages): { version, setup,
-- specs, managers }. Raises an input error naming the line.
function iometer.parse(text, path)
  local r = reader(text, path)
  local ver = version(r)
  local setup = test_setup(r, ver)
  local specs = access_specs(r)
  r.i = 1
  local managers = workers.manager_list(r)
  return { version = ver, setup = setup, specs = specs, managers = managers, path = path }
end

--- Read and parse the .icf file at path.
function iometer.read(path)
  local st, why = iomoon.stat(path)
  if not st then input_error("%s: %s", shown(path), why) end
  if st.kind ~= "file" then input_error("%s: is a %s, not an IOMeter .icf file", shown(path), st.kind) end
  local f, err = io.open(path, "rb")
  if not f then input_error("%s", shown(err)) end
  local text = f:read("a")
  f:close()
  return iometer.parse(text or "", path)
end

iometer.plan = plan.plan
iometer.targets = plan.targets

--- The phases to run for the suite options `opts` (as a suite's phases
-- function gets them): each template's `targets` (indexes into `names`,
-- the file's disk targets) replaced by --target's paths (opts.target, "a,b"
-- for two), regions capped at the test area; `size` is the suite's size.
function iometer.resolve(opts, names, size, templates)
  return plan.resolve(templates, plan.targets(opts, names, size), opts and opts.area_bytes)
end

--- The suite of the .icf file at path (as suite.load returns a bench
-- suite): o.skip_unsupported runs what iomoon can do and lists the rest
-- in every phase's meta.iometer.skipped.
function iometer.suite(path, o)
  o = o or {}
  local p = iometer.plan(iometer.read(path), o or {})
  return {
    name = p.name, description = p.description, source = p.source, size = p.size,
    name_width = p.name_width, defaults = p.defaults, file = path,
    phases = function(opts) return iometer.resolve(opts, p.target_names, p.size, p.tests) end,
  }
end

--- iomoon convert FILE.icf|FILE.fio [--output F] [--skip-unsupported] [--set VAR=VALUE]:
-- the equivalent Lua on stdout (or in F, written atomically).
function iometer.convert_cli(args, lib)
  -- --set VAR=VALUE (fio's ${VAR}), given once per variable
  local sets, others = {}, {}
  local i = 1
  while i <= #args do
    local v = args[i]:match("^%-%-set=(.*)$")
    if args[i] == "--set" then v = args[i + 1] or lib.input_error("--set needs VAR=VALUE"); i = i + 1 end
    if v then sets[#sets + 1] = v else others[#others + 1] = args[i] end
    i = i + 1
  end
  args = others
  local o, rest = lib.parse_options(args, 1, { output = "value", ["skip-unsupported"] = "flag", manager = "value" })
  local file = rest[1]
  if not file then
    lib.input_error("give an IOMeter .icf or fio job file (iomoon convert FILE.icf > suite.lua)")
  end
  lib.no_stray({ table.unpack(rest, 2) })
  local text
  if file:lower():match("%.fio$") or file:lower():match("%.job$") then
    text = fio.convert(file, { skip_unsupported = o["skip-unsupported"], set = sets })
  elseif file:lower():match("%.icf$") then
    text = convert.lua(iometer.plan(iometer.read(file),
      { skip_unsupported = o["skip-unsupported"], manager = o.manager, converting = true }), file)
  else
    lib.input_error("%s: not a .icf (IOMeter) or .fio (fio) file", shown(file))
  end
  return lib.emit(o, text, { file })
end

--- An IOMeter results.csv read as a saved run (iomoon.saved.load's shape).
function iometer.load_results(path, text)
  return results.load(path, text and iometer.text(text))
end

return iometer
