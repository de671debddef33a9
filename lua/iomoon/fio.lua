-- iomoon.fio: fio's job files and command line run by iomoon
-- (`iomoon fio`), converted to Lua (`fio.convert`), and results written
-- in fio's --output-format=json layout (`fio.json`). The reading is in
-- fio/job.lua, the mapping onto phases in fio/map.lua, the Lua plan in
-- fio/convert.lua, fio's JSON layout in fio/json.lua; doc/import.md says
-- what maps onto what.
local iomoon = require "iomoon"
local job = require "iomoon.fio.job"
local map = require "iomoon.fio.map"
local convert = require "iomoon.fio.convert"
local fio_json = require "iomoon.fio.json"
local options = require "iomoon.fio.options"
local plans = require "iomoon.fio.plans"
local errors = require "iomoon.errors"
local util = require "iomoon.util"
local input_error = errors.input

local fio = {}

--- The variables of ${VAR}: --set VAR=VALUE (a list of "VAR=VALUE"),
-- else the environment.
function fio.env(set)
  local given = {}
  for _, kv in ipairs(set or {}) do
    local k, v = kv:match("^([%w_]+)=(.*)$")
    if not k then input_error("--set: '%s' is not VAR=VALUE", util.shown(kv)) end
    given[k] = v
  end
  return function(k)
    if given[k] ~= nil then return given[k] end
    return os.getenv(k)
  end
end

-- The options the command line takes for itself; every other --NAME is
-- one of fio's.
local OWN = {
  target = "value", ["skip-unsupported"] = "flag", format = "value", output = "value", quiet = "flag",
  ["allow-write"] = "flag", force = "flag", ["output-format"] = "value", set = "list",
  minimal = "flag", eta = "value", ["eta-newline"] = "value", ["status-interval"] = "value",
  ["warnings-fatal"] = "flag",
}

--- Sections (as iomoon.fio.job.parse gives them) of fio's command-line options:
-- those before the first --name are [global], each --name starts a job.
-- `--opt=value` or `--opt value` (a flag takes a value only after '=').
function fio.cli_sections(opts)
  local sections = { { name = "global", line = 0, where = "command line", opts = {} } }
  local cur = sections[1]
  for _, o in ipairs(opts) do
    local key = job.canonical(o.key)
    if key == "name" then
      job.check_value({ key = key, given = "--" .. o.key, value = o.value, where = "command line" })
      cur = { name = o.value or "", line = 0, where = "command line: --" .. o.key, opts = {} }
      sections[#sections + 1] = cur
    end
    cur.opts[#cur.opts + 1] = { key = key, given = "--" .. o.key, value = o.value, line = 0,
      where = "command line" }
    job.check_value(cur.opts[#cur.opts])
  end
  return sections
end

local USAGE = [[
usage: iomoon fio JOB.fio... [options] [fio's --OPTION=VALUE...]
       iomoon fio --name=NAME --filename=FILE --rw=randread --bs=4k ... [options]

  fio's job files and command-line options, run as iomoon phases (doc/import.md)
  --target PATH          every job's I/O to PATH instead of its filename
  --skip-unsupported     run without the options iomoon does not take (listed)
  --format F             table, csv, json, analyzer, markdown, html, fio-json, fio-json+, fio-terse, none
  --output-format=json   fio's JSON layout (= --format fio-json); json+, terse (= --minimal); --output FILE
  --set VAR=VALUE        a job file's ${VAR} (again for each one; else the environment)
  --eta=never  --eta-newline=T  --status-interval=T  --warnings-fatal   as fio's (doc/import.md)
  --quiet  --allow-write  --force
]]

-- Split args into iomoon's own options (o), fio's ({key, value} in
-- order) and job files.
local function split_args(args)
  local o, fopts, files = {}, {}, {}
  local i = 1
  while i <= #args do
    local a = args[i]
    local k, v = a:match("^%-%-([%w_%-]+)=(.*)$")
    if not k then k = a:match("^%-%-([%w_%-]+)$") end
    if not k then
      if a:match("^%-") then input_error("'%s' is not an option (fio's options start with two hyphens: --rw=read)", a) end
      files[#files + 1] = a
    elseif OWN[k] then
      if OWN[k] == "flag" then
        if v then input_error("--%s takes no value", k) end
        o[k] = true
      elseif OWN[k] == "list" then -- --set VAR=VALUE, given again for each variable
        if v == nil then v = args[i + 1]; i = i + 1 end
        o[k] = o[k] or {}
        o[k][#o[k] + 1] = v or input_error("--%s needs VAR=VALUE", k)
      else
        if v == nil then
          v = args[i + 1]
          if v == nil then input_error("--%s needs a value", k) end
          i = i + 1
        end
        o[k] = v
      end
    else
      local key = job.canonical(k)
      if v == nil and not job.FLAGS[key] and args[i + 1] ~= nil and not args[i + 1]:match("^%-%-") then
        v = args[i + 1]
        i = i + 1
      end
      fopts[#fopts + 1] = { key = k, value = v }
    end
    i = i + 1
  end
  return o, fopts, files
end

-- iomoon's report format from --format and fio's --output-format
local FIO_FORMATS = { json = "fio-json", ["json+"] = "fio-json+", terse = "fio-terse", normal = "table" }

local function format_of(o)
  local f = o["output-format"]
  if o.minimal then
    if f and f ~= "terse" then input_error("--minimal is --output-format=terse: give one of them") end
    f = "terse"
  end
  if f then
    if o.format then input_error("--output-format: give it or --format, not both") end
    if FIO_FORMATS[f] then return FIO_FORMATS[f] end
    input_error("--output-format: '%s' is not supported (json, json+: fio's JSON layout, with the latency bins; "
      .. "terse: fio's terse v3 line; normal: iomoon's table; one of them)", f)
  end
  return o.format
end

-- fio's progress options: --eta=never is --quiet; --eta-newline and
-- --status-interval are iomoon's per-interval samples (each phase's
-- `interval`, in every result); notes say so.
local function progress_of(o, notes)
  if o.eta then
    local e = o.eta:lower()
    if e == "never" then o.quiet = true
    elseif e ~= "always" and e ~= "auto" then input_error("--eta: '%s' is not always, never or auto", o.eta) end
  end
  local every
  for _, k in ipairs { "status-interval", "eta-newline" } do
    if o[k] then
      local us = job.time_us(o[k], 1e6, "--" .. k)
      if us < 10000 then input_error("--%s: '%s' is shorter than 10 ms (iomoon's shortest interval)", k, o[k]) end
      every = math.min(every or math.huge, us / 1e6)
      notes[#notes + 1] = string.format("--%s=%s: iomoon samples every phase each %gs (the result's intervals); its "
        .. "progress line shows the run as it goes", k, o[k], us / 1e6)
    end
  end
  return every
end

-- path as messages show it (control bytes escaped)
local shown = util.shown

-- The text of the job file at path: a regular file (a directory or a FIFO
-- is refused before it is opened: reading a FIFO would wait for a writer).
local function read_file(path)
  local st, why = iomoon.stat(path)
  if not st then input_error("%s: cannot read the job file (%s)", shown(path), why) end
  if st.kind ~= "file" then input_error("%s: is a %s, not a job file", shown(path), st.kind) end
  local f, err = io.open(path, "rb")
  if not f then input_error("%s: cannot read the job file (%s)", shown(path), shown(err)) end
  local text = f:read("a")
  f:close()
  return text
end

--- Everything a run of fio's jobs needs: sections from job files (path
-- or text) and command-line options; opts: target, skip (skip the
-- unsupported), allow_write, force. Returns phases, from, notes (stderr
-- lines) and skipped (the options left out, as "file:line: 'key'").
function fio.load(sources, opts)
  opts = opts or {}
  local sections = {}
  local env = fio.env(opts.set)
  for _, s in ipairs(sources) do
    local list = s.sections or job.parse(s.text or read_file(s.path), s.name or s.path, env)
    for _, sec in ipairs(list) do sections[#sections + 1] = sec end
  end
  local bad, noop, said = job.unsupported(sections)
  local skipped = {}
  for _, b in ipairs(bad) do skipped[#skipped + 1] = string.format("%s: '%s'", b.where, b.given) end
  if #bad > 0 and not (opts.skip or opts.skip_unsupported) then
    input_error("%d fio option%s iomoon does not take: %s (doc/import.md; --skip-unsupported runs without them)",
      #bad, #bad == 1 and "" or "s", table.concat(skipped, ", "))
  end
  -- options skipped are dropped before the jobs are built
  for _, sec in ipairs(sections) do
    local keep = {}
    for _, opt in ipairs(sec.opts) do if job.kind(opt) then keep[#keep + 1] = opt end end
    sec.opts = keep
  end
  local phases, from, notes = map.phases(job.jobs(sections), opts)
  for i, s in ipairs(said) do
    table.insert(notes, i, string.format("%s: %s: %s", s.where, s.given, options.SAID[s.key]))
  end
  if #noop > 0 then
    notes.bookkeeping = string.format("%s change%s only fio's own bookkeeping: no effect here",
      table.concat(noop, ", "), #noop == 1 and "s" or "")
    table.insert(notes, 1, notes.bookkeeping)
  end
  if #skipped > 0 then
    for _, p in ipairs(phases) do
      p.meta = p.meta or {}
      p.meta.fio_skipped = skipped
    end
    notes[#notes + 1] = "skipped (--skip-unsupported): " .. table.concat(skipped, ", ")
  end
  return phases, from, notes, skipped
end

--- The phases of a job file's text (name: its name in messages).
function fio.phases(text, name, opts)
  return (fio.load({ { text = text, name = name or "job.fio" } }, opts))
end

-- every target path of a phase, for the report's checks
local function add_paths(list, t)
  if type(t) == "string" then list[#list + 1] = { path = t }
  elseif type(t) == "table" and t.path then list[#list + 1] = { path = t.path }
  elseif type(t) == "table" then for _, x in ipairs(t) do add_paths(list, x) end end
end

--- iomoon fio JOB.fio | --name=... [--target PATH] [--skip-unsupported]
-- [--format F | --output-format=json] [--output FILE]: fio's jobs run as
-- iomoon phases, every one checked before the first runs.
function fio.cli(args, lib)
  if args[1] == "--help" or args[1] == "-h" then
    io.stdout:write(USAGE)
    return 0
  end
  local o, fopts, files = split_args(args)
  o.format = format_of(o)
  if #files == 0 and #fopts == 0 then
    input_error("give a job file or fio's options (iomoon fio JOB.fio, or iomoon fio --name=NAME --rw=... ; doc/import.md)")
  end
  local sources = {}
  for _, f in ipairs(files) do
    if not iomoon.stat(f) then input_error("%s: no such job file", shown(f)) end
    sources[#sources + 1] = { path = f }
  end
  if #fopts > 0 then sources[#sources + 1] = { sections = fio.cli_sections(fopts), name = "command line" } end
  local phases, _, notes = fio.load(sources, { target = o.target, skip = o["skip-unsupported"], set = o.set,
    allow_write = o["allow-write"], force = o.force })
  local every = progress_of(o, notes)
  if every then for _, p in ipairs(phases) do if p.interval == nil then p.interval = every end end end
  if o["warnings-fatal"] then -- what iomoon does differently; not fio's bookkeeping, which changes nothing
    local differ = {}
    for _, n in ipairs(notes) do if n ~= notes.bookkeeping then differ[#differ + 1] = n end end
    if #differ > 0 then
      input_error("--warnings-fatal: %d note%s on what iomoon does differently: %s", #differ, #differ == 1 and "" or "s",
        table.concat(differ, "; "))
    end
  end
  for _, n in ipairs(notes) do io.stderr:write("iomoon fio: note: ", shown(n), "\n") end
  local targets = {}
  for _, f in ipairs(files) do targets[#targets + 1] = { path = f, input = "the job file" } end
  for _, p in ipairs(phases) do
    add_paths(targets, p.target)
    for _, s in ipairs(p.streams or {}) do add_paths(targets, s.target) end
  end
  return lib.run_reported("iomoon fio: ", o, function()
    for _, p in ipairs(phases) do plans.run(p) end
  end, nil, targets, function()
    local from = #files > 0 and table.concat(files, ", ") or "command line"
    for i, p in ipairs(phases) do
      local ok, e = pcall(iomoon.check, p)
      if not ok then -- the phase's place in the jobs, as a mistake in the file is named
        if type(e) == "table" and type(e.msg) == "string" then
          e.msg = string.format("%s (%s, phase %d of %d: %s)", e.msg, shown(from), i, #phases, shown(p.name))
        end
        error(e, 0)
      end
    end
  end, #phases)
end

--- The Lua plan of a fio job file (a path, or its text; opts as
-- fio.load's): a script for `iomoon run` that checks every phase, then
-- runs them, as `iomoon fio` does (iomoon.fio.convert).
function fio.convert(path_or_text, opts)
  local src
  if not path_or_text:find("\n") and iomoon.stat(path_or_text) then
    src = { path = path_or_text }
  else
    src = { text = path_or_text, name = "job.fio" }
  end
  local phases, from, notes = fio.load({ src }, opts)
  return convert.plan(phases, from, notes, src.path)
end

--- Results in fio's --output-format=json layout (iomoon.fio.json).
fio.json = fio_json.json

return fio
