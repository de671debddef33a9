-- iomoon.cli: the command line. main.c hands it argv and exits with what
-- main() returns: 0 success, 1 the run failed (I/O error, interrupted),
-- 2 bad input (a wrong option or field, a script error).

local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local util = require "iomoon.util"
local json = require "iomoon.json"
local report = require "iomoon.report"
local outfile = require "iomoon.report.file"

-- The subcommands' modules load when a subcommand first uses one: every
-- invocation of iomoon starts with this file, and loading them all took
-- 12 ms of the 32 a start cost (a test suite starts iomoon thousands of
-- times).
local function lazy(load)
  return setmetatable({}, { __index = function(t, k)
    local m = load()
    setmetatable(t, { __index = m })
    return m[k]
  end })
end
local suite = lazy(function() return require "iomoon.suite" end) -- lazy load: start-up time
local saved = lazy(function() return require "iomoon.saved" end) -- lazy load: start-up time
local compare = lazy(function() return require "iomoon.compare" end) -- lazy load: start-up time
local trace = lazy(function() return require "iomoon.trace" end) -- lazy load: start-up time
local fio = lazy(function() return require "iomoon.fio" end) -- lazy load: start-up time
local ping = lazy(function() return require "iomoon.ping" end) -- lazy load: start-up time
local iometer = lazy(function() return require "iomoon.iometer" end) -- lazy load: start-up time
local fiomap = lazy(function() return require "iomoon.fio.map" end) -- lazy load: start-up time

local cli = {}

local INPUT_MT = debug.getregistry()["iomoon.input_error"]
local RUN_MT = debug.getregistry()["iomoon.run_error"]

local USAGE = [[
usage: iomoon COMMAND [options]

  iomoon run [options] SCRIPT.lua [ARGS...]   run a Lua script (ARGS in `arg`; iomoon's options
                                              go before SCRIPT, or after -- to be the script's)
  iomoon suite NAME|FILE --target PATH [options]   run a bench suite
  iomoon quick --target PATH [options]        one phase from flags, fio-style
  iomoon ping [ioping's options] DIR|FILE|DEVICE   per-request latency, as ioping 1.3 measures it
  iomoon report RESULTS.json [--format F] [--output FILE]   a saved run (--format json) rendered again
  iomoon compare A.json B.json [--pair A=B] [--pair-by position] [--format F] [--output FILE]
                                              two saved runs, phase by phase: better or worse
  iomoon rerun RESULTS.json [--target PATH] [options]   the same phases again, from their definitions
  iomoon replay TRACE --target PATH [--speed X] [--no-stall] [options]   play a recorded trace back
  iomoon trace profile TRACE [--trace-format F] [--device D]   what a trace does, summed up
  iomoon verify TARGET [--after-crash] [--atomic] [--verify-state DIR] [--no-state]
                                              every unit read back against its crc32c state (exit 2:
                                              none found); after a power cut, classed against what
                                              was made durable (exit 1: a unit lost or damaged)
  iomoon fio JOB.fio | --name=N --filename=F --rw=... [--skip-unsupported]   a fio job file or command line
  iomoon suite FILE.icf --target PATH         an IOMeter configuration file, as it is
  iomoon convert FILE.icf|JOB.fio             the equivalent Lua suite or plan, on stdout
  iomoon list                                 engines and suites, and what works here
  iomoon help                                 this text
  iomoon --version

options (run, suite, quick):
  --format table|csv|json|analyzer|markdown|html|fio-json|fio-json+|fio-terse|none   output format (default table)
  --output FILE                  write the report to FILE (atomically), not stdout
  --quiet                        no progress line on the terminal
  --metrics ADDR:PORT            serve live figures (OpenMetrics) at http://ADDR:PORT/metrics
                                 (127.0.0.1 unless --metrics-public)
  --metrics-file PATH            the same figures rewritten after every interval (node_exporter)
  --live PATH|-                  one JSON line per interval and stream
options (suite, quick):
  --target PATH     file or block device        --size SIZE   test area (creates a file)
  --time DUR        measured time of a phase    --ramp DUR    unmeasured warm-up
  --engine NAME     ENGINES
  --qd N            outstanding I/Os per worker --workers N   threads
  --buffered        page cache I/O (default is O_DIRECT)
  --allow-write     allow writes to a block device, or to a file iomoon did not create
  --force           with --allow-write: write even over a mounted or formatted device
options (suite only):
  --ios N           every timed phase also ends after N I/Os (a smoke test)
  a suite's own, after its name (snia-pts-*: --round DUR --max-rounds N --skip-purge
                    --profile enterprise|client --interval DUR; doc/suites.md)
  --skip-unsupported   an .icf's tests iomoon cannot run are left out, not refused
  --verify-state DIR   where the phases that verify with crc32c keep their state (suite, verify)
  --manager NAME       an .icf's manager whose workers run here (several: one per rank under mpirun)
options (quick only):
  --bs SIZE (4k)  --read PCT (100)  --random PCT (100: quick is random; a Lua phase's random is 0)
  --rate IOPS  (a PCT between 0 and 1 is refused as a fraction: 0.7% is 0.7 %)
  --ios N  --dist DIST  --seed N  --name NAME  --batch N|auto (I/Os per submission at most)
  fio's spellings: --rw read|write|randread|randwrite|rw|randrw  --iodepth N (--qd)
  --numjobs N (--workers)  --runtime DUR (--time)  --ioengine NAME (--engine; sync is psync)

Sizes: 512, 4k, 1.5m, 2g (binary). Durations: 500ms, 10s, 2m, 1h (ns us ms s/sec m/min h;
a bare number is seconds).
Docs: doc/cli.md, doc/lua-api.md.
]]

local input_error = errors.input

-- what an option is called in messages, where the user gave it by another
-- spelling (quick's fio spellings: "--qd" -> "--iodepth")
local shown_as = {}

-- An error's text: "file:line: " only where the file is the user's own,
-- not the library's (whose lines say nothing to a user).
-- The text of error e (an error table, or a traceback string): the
-- user's line, then the message; with `options` (a map of phase field ->
-- command-line option), the field the error names as data is shown as the
-- option that set it ("--qd: 0 is out of range").
-- Whatever it holds, the text has no URL's password (iomoon.redact: a
-- script's own error may quote its target).
local function error_text(e, options)
  if type(e) ~= "table" then return iomoon.redact(tostring(e)) end
  local where = e.where or ""
  local lib = iomoon.lua_dir
  if lib and where:sub(1, #lib) == lib then where = "" end
  local field, what = e.field, e.what
  if getmetatable(e) == RUN_MT and options and type(e.msg) == "string" then -- its message may name a field
    field, what = e.msg:match("^([%w_%.%[%]%-]+): (.*)$")
  end
  local option = options and field and options[field]
  option = shown_as[option] or option
  if option then return iomoon.redact(where .. option .. ": " .. what) end
  return iomoon.redact(where .. (e.msg or ""))
end

-- Run fn(...); classify what it raised. Returns the exit status, the error
-- (a table, or a traceback string) and fn's result.
local function protect(fn, ...)
  local ok, err = xpcall(fn, function(e)
    local mt = getmetatable(e)
    if mt == INPUT_MT or mt == RUN_MT then return e end
    -- a bug in a script: its traceback, down to where iomoon called it
    local tb = debug.traceback(tostring(e), 2)
    return (tb:gsub("\n%s*%[C%]: in function 'xpcall'.*$", ""))
  end, ...)
  if ok then return 0, nil, err end
  local mt = getmetatable(err)
  if mt == RUN_MT then return 1, err end
  return 2, err
end

--- Parse options from args[i..]. spec: name -> "value" | "flag" | "list"
-- (a value that may be given again: o[name] is the list of them).
-- Returns the options, the other words, and whether a `--` ended the
-- options (it is not among the words). Stops at the first non-option
-- when stop_at_arg is set.
local function parse_options(args, i, spec, stop_at_arg)
  local o, rest = {}, {}
  while i <= #args do
    local a = args[i]
    if a == "--" then
      for j = i + 1, #args do rest[#rest + 1] = args[j] end
      return o, rest, true
    end
    local name, val = a:match("^%-%-([%w%-]+)=(.*)$")
    if not name then name = a:match("^%-%-([%w%-]+)$") end
    if not name then
      if stop_at_arg then
        for j = i, #args do rest[#rest + 1] = args[j] end
        break
      end
      rest[#rest + 1] = a
      i = i + 1
    else
      local kind = spec[name]
      if not kind then
        local known, names = {}, {}
        for k in pairs(spec) do known[#known + 1] = "--" .. k; names[#names + 1] = k end
        table.sort(known)
        table.sort(names)
        local near = errors.nearest(name, names)
        if near then input_error("unknown option --%s (did you mean --%s?)", name, near) end
        input_error("unknown option --%s (known here: %s)", name, table.concat(known, " "))
      end
      if kind == "flag" then
        if val then input_error("--%s takes no value", name) end
        o[name] = true
        i = i + 1
      else
        if not val then
          val = args[i + 1]
          if val == nil then input_error("--%s needs a value", name) end
          if val:match("^%-%-%a") and spec[val:match("^%-%-([%w%-]+)")] then
            input_error("--%s needs a value, not the option %s (give --%s=%s if that is the value)", name, val, name,
              val)
          end
          i = i + 2
        else
          i = i + 1
        end
        if kind == "list" then -- repeatable: every value, in order
          o[name] = o[name] or {}
          table.insert(o[name], val)
        else
          o[name] = val
        end
      end
    end
  end
  return o, rest
end

local function number_opt(o, name, integer)
  local v = o[name]
  if v == nil then return nil end
  local n = tonumber(v)
  if n and integer then n = math.tointeger(n) end
  if not util.finite(n) then
    input_error("--%s: '%s' is not a%s number", name, v, integer and " whole" or "")
  end
  return n
end

-- --batch: "auto" or a whole number (its range is the core's to check)
local function batch_opt(o)
  if o.batch == "auto" then return "auto" end
  if o.batch ~= nil and not math.tointeger(tonumber(o.batch)) then
    input_error("--batch: '%s' is neither a whole number nor auto (at most N I/Os per submission, 1 to the qd, or auto)",
      o.batch)
  end
  return number_opt(o, "batch", true)
end

local OUTPUT_OPTS = { format = "value", output = "value", quiet = "flag",
  metrics = "value", ["metrics-public"] = "flag", ["metrics-file"] = "value", live = "value" }

-- The watchers' exports (iomoon.metrics; doc/reports.md, "Watching a
-- run"), started before any phase: a port in use, an address that is
-- not local or a path that cannot be written is bad input, in the
-- options' words.
local METRICS_OPTION = { listen = "--metrics", public = "--metrics-public", file = "--metrics-file",
  live = "--live" }
local function start_metrics(o, targets)
  if o["metrics-public"] and not o.metrics then input_error("--metrics-public: give --metrics ADDR:PORT too") end
  if not (o.metrics or o["metrics-file"] or o.live) then return end
  if o["metrics-file"] and outfile.is_stdout(o["metrics-file"]) then
    input_error("--metrics-file: '%s' is standard output; the textfile is rewritten by renaming a new one over it "
      .. "(give a path; --live - puts lines on standard output)", o["metrics-file"])
  end
  for _, k in ipairs({ "metrics-file", "live" }) do
    if o[k] and not outfile.is_stdout(o[k]) then outfile.check_output(o[k], targets or {}, "--" .. k) end
  end
  local ok, m = pcall(iomoon.metrics, { listen = o.metrics, public = o["metrics-public"] or nil,
    file = o["metrics-file"], live = o.live and outfile.is_stdout(o.live) and "-" or o.live })
  if not ok then
    local field, what = tostring(m.msg or m):match("^metrics%.(%w+): (.*)$")
    if getmetatable(m) == INPUT_MT and field then input_error("%s: %s", METRICS_OPTION[field] or field, what) end
    error(m, 0)
  end
  if m.listen then io.stderr:write("iomoon: metrics on http://", m.listen, "/metrics\n") end
end

local with = util.merge

-- the report formats, and none
local FORMATS = { none = true }
for _, f in ipairs(report.formats) do FORMATS[f] = true end

-- What a report keeps of a result: all of it but the latency histograms
-- (44 KiB of buckets each, that no report format prints), its streams'
-- included, so a long run's memory grows only by what its report shows;
-- a copy in which no string holds a URL's password (util.redacted: a
-- name or meta field may quote one), whatever the format.
local function slim(r, buckets)
  local c = {}
  for k, v in pairs(r) do
    if k == "lat" and type(v) == "table" and rawget(v, "hist") ~= nil then
      c[k] = {}
      for lk, lv in pairs(v) do if lk ~= "hist" then c[k][lk] = util.redacted(lv) end end
      if buckets then c[k].buckets = v.hist:buckets() end -- fio's json+ bins and terse shares
    elseif k == "streams" and type(v) == "table" then
      c.streams = {}
      for i, s in ipairs(v) do c.streams[i] = slim(s, buckets) end
    else
      c[util.redacted(k)] = util.redacted(v)
    end
  end
  return c
end

-- The report sink: rows as phases finish on a terminal; with --output, the
-- whole report rewritten atomically after every phase; else the document
-- on stdout at the end. It sees results through iomoon.on_result, and
-- keeps them only where its report needs them all (not for the table on a
-- terminal, nor for none). sink.failed: a result that makes the exit 1.
-- targets: the paths the run will do I/O to and the files it reads ({path
-- =, input =}: an output file may be none of them). Everything is checked
-- here, before any phase runs.
local function make_sink(o, name_width, targets)
  local fmt = o.format or "table"
  if not FORMATS[fmt] then
    input_error("--format: '%s' is not a format (%s or none)", fmt, table.concat(report.formats, ", "))
  end
  if o.live and outfile.is_stdout(o.live) and fmt ~= "table" and fmt ~= "none" and
      (not o.output or outfile.is_stdout(o.output)) then
    input_error("--live %s: standard output carries the %s report, which the live lines would break; "
      .. "give --live a file, or the report --output FILE (or --format none)", o.live, fmt)
  end
  local sink = { format = fmt, results = {}, count = 0, failed = false }
  local out = o.output and outfile.check_output(o.output, targets or {}) or nil
  if out == "-" then out = nil end -- standard output, written as without --output
  if out then iomoon.protect(out, "the report file (--output)") end -- no phase may use it
  local file = (out and fmt ~= "none") and report.writer(out, fmt) or nil
  sink.path = file and out or nil -- where the report goes, when it is a file
  local rows = (fmt == "table" and not file) and report.table_writer(io.stdout, name_width or 36) or nil
  local keep = fmt ~= "none" and (file ~= nil or fmt ~= "table")
  function sink.add(r)
    sink.count = sink.count + 1
    if r.failed or r.interrupted or r.errors > 0 then sink.failed = true end
    if rows then
      if sink.count == 1 then rows:header(r) end
      rows:row(r)
      -- a SNIA PTS phase: what its window table needs (a few numbers)
      local m = util.opt(util.opt(r, "meta"), "pts")
      if type(m) == "table" then
        sink.pts = sink.pts or {}
        local lat = util.opt(r, "lat")
        sink.pts[#sink.pts + 1] = { meta = { pts = m }, iops = r.iops, mb_per_s = r.mb_per_s,
          lat = { mean_ns = util.opt(lat, "mean_ns"), max_ns = util.opt(lat, "max_ns") },
          write = { bytes = util.opt(util.opt(r, "write"), "bytes") }, trim = { bytes = util.opt(util.opt(r, "trim"), "bytes") } }
      end
    end
    -- a pass/fail suite's phase (meta.verdict): kept for its verdict and the exit status
    if util.opt(util.opt(r, "meta"), "verdict") ~= nil then
      sink.judged = sink.judged or {}
      sink.judged[#sink.judged + 1] = slim(r)
    end
    if keep then
      local c = slim(r, fmt == "fio-json+" or fmt == "fio-terse")
      if file then file:add(c) else sink.results[#sink.results + 1] = c end
    end
  end
  -- status: the run's exit status. Bad input that stopped the run before
  -- any phase finished writes no report (an existing one is kept).
  function sink.finish(status)
    if status == 2 and sink.count == 0 then
      io.stdout:flush()
      return
    end
    if file then
      file:close()
    elseif keep then
      io.stdout:write(report.render(fmt, sink.results))
    elseif sink.pts then
      io.stdout:write(report.pts_of(sink.pts).text(sink.pts))
    end
    -- the verdict (iomoon.report.verdict): after the table; a FAIL is exit status 1
    local v = sink.judged and report.verdict(sink.judged)
    if v and rows then io.stdout:write(report.verdict_text(sink.judged)) end
    if v and not v.pass then sink.failed = true end
    io.stdout:flush()
  end
  -- with a data format on stdout, a script's print() must not corrupt it,
  -- nor its iomoon.metrics{live = "-"}
  if fmt ~= "table" and fmt ~= "none" and not file then
    _G.print = function(...)
      local parts = {}
      for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
      io.stderr:write(table.concat(parts, "\t"), "\n")
    end
    local metrics = iomoon.metrics
    iomoon.metrics = function(t)
      if type(t) == "table" and type(t.live) == "string" and outfile.is_stdout(t.live) then
        input_error("metrics.live: \"%s\" is standard output, which carries the %s report (give a path)", t.live, fmt)
      end
      return metrics(t)
    end
  end
  return sink
end


-- Shared by suite and quick: the target from --target/--size/--allow-write.
local TARGET_OPTS = {
  target = "value", size = "value", time = "value", ramp = "value", engine = "value",
  qd = "value", workers = "value", buffered = "flag", ["allow-write"] = "flag", force = "flag",
}

-- The target as an option table: iomoon.run creates the file only once the
-- phase has been checked, so bad input leaves nothing on disk.
local function target_spec(o, default_size)
  if not o.target and (o.engine == "null" or o.engine == "sim") then
    return nil -- the engines that do no I/O run on a nominal region (--size, default 1 GiB)
  end
  if not o.target then input_error("--target: missing (a file or block device to test, e.g. --target /mnt/test/iomoon.dat)") end
  local size = o.size
  -- stat, never open: opening a FIFO would block
  -- a URL (an NBD export, an iSCSI LUN) is used at its own size, as a device is
  if not size and not iomoon.stat(o.target) and not util.is_url(o.target) then size = default_size end
  return { path = o.target, size = size, allow_write = o["allow-write"] or false, force = o.force or false }
end

-- Phase errors name phase fields (err.field); on the command line of
-- quick and suite, name the option that set the field.
local OPTION_OF = {
  ["phase.bs"] = "--bs", ["phase.read"] = "--read", ["phase.random"] = "--random",
  ["phase.qd"] = "--qd", ["phase.workers"] = "--workers", ["phase.engine"] = "--engine",
  ["phase.duration"] = "--time", ["phase.ramp"] = "--ramp", ["phase.rate.iops"] = "--rate",
  ["phase.ios"] = "--ios", ["phase.dist"] = "--dist", ["phase.seed"] = "--seed", ["phase.batch"] = "--batch",
  ["target.size"] = "--size", ["target.path"] = "--target", ["phase.region"] = "--size",
  ["phase.target.size"] = "--size", ["phase.target.path"] = "--target", ["phase.target"] = "--target",
  ["phase.verify_state"] = "--verify-state",
}

-- iomoon verify's options, by the phase field they set (its target is
-- an argument, not --target)
local VERIFY_OPTION_OF = {
  ["phase.bs"] = "--bs", ["phase.qd"] = "--qd", ["phase.workers"] = "--workers", ["phase.engine"] = "--engine",
  ["phase.verify_state"] = "--verify-state", ["phase.need_state"] = "no verification state",
}

local function common_overrides(o)
  local ov = {
    time = o.time, ramp = o.ramp, engine = o.engine,
    qd = number_opt(o, "qd", true), workers = number_opt(o, "workers", true),
  }
  if o.buffered then ov.direct = false end
  return ov
end

-- n and a noun, singular for one: "1 phase", "3 phases"
local function count_of(n, noun)
  return string.format("%d %s%s", n, noun, n == 1 and "" or "s")
end

-- What an interrupted run says on stderr once its report is written: how
-- many of the phases it meant to run did (planned: a number or a function
-- giving it, when the verb knows it) and where the partial report went
-- (a file); nil when there is nothing to say.
local function stopped_text(sink, planned)
  if type(planned) == "function" then planned = planned() end
  local parts = {}
  if type(planned) == "number" and planned > 1 then
    local left = math.max(planned - sink.count, 0)
    parts[1] = string.format("%d of %s", sink.count, count_of(planned, "phase")) ..
      (left > 0 and string.format("; %d not run", left) or "")
  end
  if sink.path then
    parts[#parts + 1] = string.format("the partial report (%s) is in %s", count_of(sink.count, "phase"),
      util.shown(sink.path))
  end
  return #parts > 0 and "interrupted: " .. table.concat(parts, "; ") or nil
end

-- The sequence the verbs share: the report sink (its output path checked
-- before anything runs), the progress line, every iomoon.run result routed
-- to the sink, body() run and classified, the report finished, the status.
-- targets: the run's inputs, which --output may not name (and no phase
-- may use: iomoon.protect). check(): the checks of what will run, after
-- the output path's (bad input there writes nothing). planned: how many
-- phases body() means to run (a number, or a function giving it once
-- check() ran), for what an interrupted run says (stopped_text).
local function run_reported(verb, o, body, name_width, targets, check, planned)
  for _, f in ipairs(targets or {}) do
    if f.input then iomoon.protect(f.path, f.input) end
  end
  local sink = make_sink(o, name_width, targets)
  if check then check() end
  start_metrics(o, targets)
  iomoon.set_progress(not o.quiet)
  local unhook = iomoon.on_result(sink.add)
  -- a script's os.exit still leaves the report whole
  local real_exit = os.exit
  os.exit = function(code, close)
    os.exit = real_exit
    unhook()
    sink.finish(0)
    return real_exit(code, close)
  end
  local status, err = protect(body)
  os.exit = real_exit
  unhook()
  sink.finish(status)
  local stopped = iomoon.interrupted() and stopped_text(sink, planned) or nil
  if status ~= 0 then
    local text = error_text(err, (verb:find("quick") or verb:find("suite") or verb:find("rerun")) and OPTION_OF
      or verb:find("verify") and VERIFY_OPTION_OF)
    if text ~= "interrupted" or not stopped then io.stderr:write(verb, text, "\n") end
  end
  if stopped then io.stderr:write(verb, stopped, "\n") end
  if status ~= 0 then return status end
  -- a stop signal between phases (in iomoon.sleep, say) is an interrupted run too
  return (sink.failed or iomoon.interrupted()) and 1 or 0
end

-- Arguments that are not options, where none are expected.
local function no_stray(rest)
  local a = rest[1]
  if a == nil then return end
  if a:match("^%-%a") or a:match("^\226\128[\147\148]") then
    input_error("'%s' is not an option (options start with two hyphens, as --read)", a)
  end
  input_error("unexpected argument '%s' (every option is --NAME VALUE)", a)
end

-- a percentage option: a number, with or without one "%" ("70%" is 70);
-- anything else is bad input naming the option and the value as typed
-- (its range is the core's to check)
-- A number between 0 and 1 without its "%" is refused as the fraction it
-- looks like (--read 0.7 would be 0.7 % reads); "0.7%" is 0.7 %.
local function pct_opt(o, name)
  local v = o[name]
  if v == nil then return nil end
  local pct = type(v) == "string" and v:match("^(.-)%s*%%$")
  local n = tonumber(pct or v)
  if not util.finite(n) then
    input_error("--%s: '%s' is not a percentage (give a number from 0 to 100, as 70 or 70%%)", name, v)
  end
  if n > 0 and n < 1 and not pct then
    input_error("--%s: %s means %g %%, not %g %% (a percentage from 0 to 100, not a fraction): did you mean %g? "
      .. "(a share under 1 %% is written %g%%)", name, v, n, n * 100, n * 100, n)
  end
  return n
end


-- fio's spellings of quick's options, and the option each is (--rw is
-- --read and --random: fio_rw)
local FIO_SPELLINGS = { iodepth = "qd", numjobs = "workers", runtime = "time", ioengine = "engine" }

-- fio's ioengine as iomoon's engine: fio's names (iomoon.fio.map's table),
-- and iomoon's own
local function fio_engine(v)
  local e = v:lower()
  if fiomap.ENGINES[e] then return fiomap.ENGINES[e] end
  local names, own = {}, { "auto" }
  for _, x in ipairs((iomoon.engines())) do
    if x.name == e or e == "auto" then return e end
    if not fiomap.ENGINES[x.name] then own[#own + 1] = x.name end
  end
  for k in pairs(fiomap.ENGINES) do names[#names + 1] = k end
  table.sort(names)
  input_error("--ioengine: '%s' has no equivalent in iomoon (fio's %s; or iomoon's %s)", v,
    table.concat(names, ", "), table.concat(own, ", "))
end

-- fio's rw as quick's read and random percentages; `o.read` and
-- `o.random` given beside it must agree (a mixed rw takes --read as
-- fio's rwmixread, 50 without it)
local function fio_rw(o)
  local rw = o.rw:lower()
  local m = fiomap.RW[rw]
  if not m or m.t then
    input_error("--rw: '%s' has no equivalent in iomoon quick (it takes fio's read, write, randread, randwrite, rw, "
      .. "readwrite and randrw%s)", o.rw, m and "; trims are a Lua phase's trim = PCT, doc/lua-api.md"
      or rw:find(":") and "; not the ':N' offset modifier" or "")
  end
  local read, random = m.r or (m.mixed and 50) or 0, m.rand and 100 or 0
  local r, x = pct_opt(o, "read"), pct_opt(o, "random")
  if r and m.mixed then read = r end
  if r and r ~= read then
    input_error("--read: %g with --rw %s, which is %g %% reads (give --rw rw or randrw with --read %g, or leave one out)",
      r, o.rw, read, r)
  end
  if x and x ~= random then
    input_error("--random: %g with --rw %s, which is %g %% random (leave one out)", x, o.rw, random)
  end
  return read, random
end

-- fio's spellings (FIO_SPELLINGS) read into quick's options, and noted
-- so that messages name what the user typed; both spellings is an error
local function fio_spellings(o)
  for fio_name, ours in pairs(FIO_SPELLINGS) do
    if o[fio_name] ~= nil and o[ours] ~= nil then
      input_error("--%s: given with --%s, which is fio's spelling of it (give one)", ours, fio_name)
    end
  end
  if o.iodepth then o.qd, shown_as["--qd"] = number_opt(o, "iodepth", true), "--iodepth" end
  if o.numjobs then o.workers, shown_as["--workers"] = number_opt(o, "numjobs", true), "--numjobs" end
  if o.runtime then o.time, shown_as["--time"] = o.runtime, "--runtime" end
  if o.ioengine then o.engine, shown_as["--engine"] = fio_engine(o.ioengine), "--ioengine" end
  if o.rw then return fio_rw(o) end
  return pct_opt(o, "read") or 100, pct_opt(o, "random") or 100
end

function cli.quick(args)
  local o, rest = parse_options(args, 1, with(with(OUTPUT_OPTS, TARGET_OPTS), {
    bs = "value", read = "value", random = "value", rate = "value", ios = "value",
    dist = "value", seed = "value", name = "value", batch = "value",
    rw = "value", iodepth = "value", numjobs = "value", runtime = "value", ioengine = "value",
  }))
  no_stray(rest)
  local read, random = fio_spellings(o)
  local t = target_spec(o, nil)
  local ov = common_overrides(o)
  local phase = {
    target = t, region = not t and o.size or nil, bs = o.bs or "4k",
    read = util.share(read), random = util.share(random), -- under 1 %: "0.7%"
    qd = ov.qd or 1, workers = ov.workers, engine = ov.engine, direct = ov.direct,
    duration = o.time, ramp = o.ramp, -- nothing given: the core's default (10 s)
    ios = number_opt(o, "ios", true), dist = o.dist, seed = number_opt(o, "seed", true),
    batch = batch_opt(o),
  }
  if o.rate then phase.rate = { iops = number_opt(o, "rate") } end
  phase.name = o.name or string.format("%s; %g%% Read; %g%% random; QD %d",
    tostring(phase.bs):upper(), read, random, phase.qd)
  return run_reported("iomoon quick: ", o, function() iomoon.run(phase) end, nil, { { path = t and t.path } },
    function() iomoon.check(phase) end)
end

-- A file target less than one unit long (a crash that emptied it, as a
-- filesystem whose blocks were not committed does) has nothing to read:
-- say how to have it judged without writing to it (a hole reads as zeros,
-- and after_crash judges each unit of its record, those past the end lost)
local function verify_too_short(path, bs)
  local f = io.open(path, "rb")
  local size = f and f:seek("end")
  if f then f:close() end
  local ok, unit = pcall(iomoon.size, bs) -- a wrong --bs is the phase's check's to name
  if not size or not ok or size >= unit then return end
  input_error("%s is %d bytes, less than one unit (%d bytes): nothing of it is left to read back. If a crash cut it "
    .. "short, give it back its size without writing to it (truncate -s SIZE %s: the hole reads as zeros) and "
    .. "judge it with iomoon verify --after-crash: each unit its state records as made durable there is then "
    .. "lost_durable; keep the state, it is the evidence", util.shown(path), size, unit, util.shown(path))
end

-- iomoon verify TARGET [--after-crash [--atomic]]: read every unit of the
-- target back against its verification state (verify_only); after a
-- crash, each unit classed against what the writing phase made durable
-- (after_crash: result.crash). Exit 1 when a unit fails; 2 when no state
-- is found (need_state), unless --no-state asks for the headers alone.
function cli.verify(args)
  local o, rest = parse_options(args, 1, with(OUTPUT_OPTS, {
    ["after-crash"] = "flag", atomic = "flag", bs = "value", qd = "value", workers = "value", engine = "value",
    buffered = "flag", name = "value", ["verify-state"] = "value", ["no-state"] = "flag",
  }))
  if not rest[1] then input_error("give the target to verify: a file, block device or URL (iomoon verify TARGET)") end
  no_stray({ table.unpack(rest, 2) })
  if o.atomic and not o["after-crash"] then input_error("--atomic: only with --after-crash (a torn unit fails it)") end
  if o["no-state"] and (o["after-crash"] or o["verify-state"]) then
    input_error("--no-state: checks the headers alone, without a state: not with --%s (which needs one)",
      o["after-crash"] and "after-crash" or "verify-state")
  end
  local ov = common_overrides(o)
  verify_too_short(rest[1], o.bs or "4k")
  local phase = {
    name = o.name or (o["after-crash"] and "after the crash" or "verify"),
    target = { path = rest[1] }, bs = o.bs or "4k", verify = "crc32c", verify_only = true,
    after_crash = o["after-crash"] or nil, atomic = o.atomic or nil, qd = ov.qd or 16, workers = ov.workers,
    engine = ov.engine, direct = ov.direct, on_error = "continue", verify_state = o["verify-state"],
    need_state = not o["no-state"] and not o["after-crash"] or nil,
  }
  return run_reported("iomoon verify: ", o, function() iomoon.run(phase) end, nil, { { path = rest[1] } },
    function() iomoon.check(phase) end)
end

-- The one file a verb names among its words (options may come before or
-- after it); what: the message when there is none.
local function the_file(rest, what)
  if not rest[1] then input_error("%s", what) end
  no_stray({ table.unpack(rest, 2) })
  return rest[1]
end

-- The suite a command line names: the first word that is not an option
-- or the value of one (a suite's own options come after its name).
local function suite_word(args, spec)
  local i = 1
  while i <= #args do
    local a = args[i]
    if a == "--" then return nil end
    local name = a:match("^%-%-([%w%-]+)$")
    if not name and not a:match("^%-%-") then return a end
    if not spec[name] and name then return nil end
    i = i + ((name and spec[name] == "value") and 2 or 1)
  end
end

function cli.suite(args)
  local spec = with(with(OUTPUT_OPTS, TARGET_OPTS), { ["skip-unsupported"] = "flag", ios = "value",
    ["verify-state"] = "value", manager = "value" })
  local word = suite_word(args, spec)
  local s0 = nil
  if word and not word:lower():match("%.icf$") then
    local ok, loaded = pcall(suite.load, word)
    s0 = ok and loaded or nil
  end
  local own = s0 and s0.options or {}
  local o, rest = parse_options(args, 1, with(spec, own))
  local name = the_file(rest, string.format("give a suite name or file (ready suites: %s)",
    table.concat(suite.list(), ", ")))
  -- loaded again with the .icf options, so a Lua suite refuses them
  local s = (s0 and name == word and not o["skip-unsupported"] and not o.manager) and s0
    or suite.load(name, { skip_unsupported = o["skip-unsupported"], manager = o.manager })
  local opts = common_overrides(o)
  opts.quiet = o.quiet or nil
  if s.options then
    opts.options = {}
    for k in pairs(s.options) do opts.options[k] = o[k] end
  end
  opts.ios = number_opt(o, "ios", true)
  if opts.ios and opts.ios < 1 then input_error("--ios: %d is not a count of I/Os (1 or more)", opts.ios) end
  opts.target = target_spec(o, s.size or "1g")
  if not opts.target then -- null or sim: a nominal region
    opts.region = o.size or "1g"
    opts.area_bytes = iomoon.size(opts.region)
  end
  opts.progress = not o.quiet
  opts.verify_state = o["verify-state"]
  local phases
  return run_reported("iomoon suite: ", o, function() suite.run(s, opts, phases) end, suite.name_width(s, opts),
    { { path = opts.target and opts.target.path }, { path = s.file, input = "the suite file" } },
    function() -- every phase, before the first runs
      local ok, e = pcall(suite.check, s, opts)
      local opt = not ok and type(e) == "table" and e.field and OPTION_OF[e.field]
      if opt and o[opt:sub(3)] == nil then e.field = nil end -- the suite's own value: its field, not an option
      if not ok then error(e, 0) end
      phases = e
    end, function() return phases and #phases end)
end

-- A word as a shell would take it back: quoted unless it is plain.
local function shell_word(w)
  if w:match("^[%w%%+,./:=@_%-]+$") then return w end
  return "'" .. w:gsub("'", "'\\''") .. "'"
end

-- The arguments of the script named words[1]: the words after it, but
-- iomoon's own options of `spec` (--NAME, --NAME=V), which are refused
-- with the command line that would have meant them, unless they come
-- after a `--` (itself dropped: the script sees what follows it). after:
-- a `--` before the script already ended iomoon's options.
local function script_arguments(words, spec, after)
  local script, args, own, theirs = words[1], {}, {}, {}
  local i = 2
  while i <= #words do
    local a = words[i]
    local name = not after and (a:match("^%-%-([%w%-]+)=") or a:match("^%-%-([%w%-]+)$"))
    if a == "--" and not after then
      after = true
    elseif name and spec[name] then
      own[#own + 1] = a
      if spec[name] == "value" and not a:find("=") and words[i + 1] ~= nil then
        i = i + 1
        own[#own + 1] = words[i]
      end
      theirs[#theirs + 1] = name
    else
      args[#args + 1] = a
    end
    i = i + 1
  end
  if #own > 0 then
    local function line(t) local q = {} for k, w in ipairs(t) do q[k] = shell_word(w) end return table.concat(q, " ") end
    local rest = #args > 0 and " " .. line(args) or ""
    input_error("--%s after the script %s: %s iomoon's, not the script's; give %s before the script "
      .. "(iomoon run %s %s%s), or after -- to pass %s to the script (iomoon run %s%s -- %s)",
      table.concat(theirs, ", --"), shell_word(script), #theirs == 1 and "it is" or "they are",
      #theirs == 1 and "it" or "them", line(own), shell_word(script), rest, #theirs == 1 and "it" or "them",
      shell_word(script), rest, line(own))
  end
  return args
end

function cli.run(args)
  local o, rest, ended = parse_options(args, 1, OUTPUT_OPTS, true)
  local script = rest[1]
  if not script then input_error("give a script (iomoon run SCRIPT.lua [ARGS...])") end
  if script:match("%.fio$") then return fio.cli(args, cli.lib) end -- a fio job file
  -- refused before the script is loaded: nothing of it runs
  local words = script_arguments(rest, OUTPUT_OPTS, ended)
  local chunk, err = loadfile(script)
  if not chunk then
    if not iomoon.stat(script) then input_error("%s: no such file", script) end
    io.stderr:write("iomoon: ", iomoon.redact(err), "\n")
    return 2
  end
  local script_args = { [0] = script }
  for i, w in ipairs(words) do script_args[i] = w end
  _G.arg = script_args
  return run_reported("iomoon: ", o, function() return chunk(table.unpack(script_args)) end, nil,
    { { path = script, input = "the script" } })
end


-- The format of a verb that writes a document of saved results: one of
-- `formats`, default table.
local function doc_format(o, formats)
  local fmt = o.format or "table"
  for _, f in ipairs(formats) do
    if f == fmt then return fmt end
  end
  input_error("--format: '%s' is not a format here (%s)", util.shown(fmt), table.concat(formats, ", "))
end

-- Write text to --output (checked first: never one of `inputs`) or stdout.
local function emit(o, text, inputs)
  local out = o.output and outfile.check_output(o.output, inputs) or "-"
  if out == "-" then
    io.stdout:write(text)
    io.stdout:flush()
  else
    outfile.write_atomic(out, text)
  end
  return 0
end

--- iomoon report RESULTS.json: a saved run rendered again, in any format,
-- without running anything.
function cli.report(args)
  local o, rest = parse_options(args, 1, { format = "value", output = "value" })
  local file = rest[1]
  if not file then input_error("give a results file (iomoon report RESULTS.json [--format F] [--output F])") end
  no_stray({ table.unpack(rest, 2) })
  local fmt = doc_format(o, report.formats)
  local inputs = { { path = file, input = "the results file" } }
  if o.output then outfile.check_output(o.output, inputs) end
  local doc = saved.load(file)
  -- a file without a machine (an older iomoon's) is not this machine's: none is shown
  local machine = doc.machine
  if machine == nil then machine = fmt == "html" and { note = "not in the results file" } or false end
  -- nor is this command line the one that ran
  return emit(o, report.render(fmt, doc.phases, machine, doc.iomoon, doc.command or false), inputs)
end

--- iomoon compare A.json B.json: two saved runs, phase by phase. Nothing
-- to compare (no phase paired) is bad input; the warnings (what else
-- differed between the runs) also go to stderr when the comparison is
-- not the table on stdout.
function cli.compare(args)
  local o, rest = parse_options(args, 1, { format = "value", output = "value", pair = "list", ["pair-by"] = "value" })
  if #rest < 2 then
    input_error("give two results files (iomoon compare A.json B.json [--pair A=B] [--pair-by name|position] "
      .. "[--format F] [--output F])")
  end
  no_stray({ table.unpack(rest, 3) })
  local fmt = doc_format(o, compare.formats)
  local inputs = { { path = rest[1], input = "the results file A" }, { path = rest[2], input = "the results file B" } }
  if o.output then outfile.check_output(o.output, inputs) end
  local a, b = saved.load(rest[1]), saved.load(rest[2])
  local doc = report.compare_document(a, b, { pairs = o.pair, by = o["pair-by"] })
  compare.check_pairs(doc)
  local text = compare.render(fmt, doc)
  if fmt ~= "table" or (o.output and outfile.check_output(o.output, {}) ~= "-") then
    for _, w in ipairs(doc.warnings) do io.stderr:write("iomoon compare: warning: ", util.shown(w), "\n") end
  end
  return emit(o, text, inputs)
end

--- iomoon rerun RESULTS.json: the same phases again, from their saved
-- definitions; every phase is checked before the first runs.
function cli.rerun(args)
  local o, rest = parse_options(args, 1, with(with(OUTPUT_OPTS, TARGET_OPTS), { ios = "value" }))
  local file = rest[1]
  if not file then input_error("give a results file (iomoon rerun RESULTS.json [--target PATH] [options])") end
  no_stray({ table.unpack(rest, 2) })
  -- suite's overrides: --time, --ramp, --qd, --workers, --engine, --buffered, --ios
  local ov = common_overrides(o)
  ov.ios = number_opt(o, "ios", true)
  if ov.ios and ov.ios < 1 then input_error("--ios: %d is not a count of I/Os (1 or more)", ov.ios) end
  local doc = saved.load(file)
  local phases, changes = saved.overridden(saved.phases(doc, o), ov)
  if #changes > 0 and not o.quiet then
    io.stderr:write("iomoon rerun: as ", util.shown(file), " ran, but ", table.concat(changes, "; "), "\n")
  end
  local targets = { { path = file, input = "the results file" } }
  local function add(t) -- a path, an option table, or a list of them
    if type(t) == "string" then targets[#targets + 1] = { path = t }
    elseif type(t) == "table" and t.path then targets[#targets + 1] = { path = t.path }
    elseif type(t) == "table" then for _, x in ipairs(t) do add(x) end end
  end
  for _, p in ipairs(phases) do
    add(p.target)
    for _, st in ipairs(type(p.streams) == "table" and p.streams or {}) do add(type(st) == "table" and st.target) end
  end
  local function check()
    local written -- an earlier phase writes with crc32c: an after_crash pass's state is made then
    for i, p in ipairs(phases) do
      local ok, e = pcall(iomoon.check, p, written and { written_before = true } or nil)
      written = written or (p.verify == "crc32c" and not p.verify_only)
      if not ok then
        if type(e) == "table" and type(e.msg) == "string" then
          local where = string.format(" (%s, phase %d of %d: %s)", util.shown(file), i, #phases, util.shown(p.name))
          e.msg = e.msg .. where
          if e.what then e.what = e.what .. where end
        end
        -- a field an override set is named by its option; a saved one by its field
        local opt = type(e) == "table" and e.field and OPTION_OF[e.field]
        if opt and o[opt:sub(3)] == nil then e.field = nil end
        error(e, 0)
      end
    end
  end
  return run_reported("iomoon rerun: ", o, function()
    for _, p in ipairs(phases) do iomoon.run(p) end
  end, nil, targets, check, #phases)
end

-- The trace-loading options of replay and trace profile.
local TRACE_OPTS = { ["trace-format"] = "value", device = "value", from = "value", to = "value",
  ["skip-bad"] = "flag" }

-- The trace named by args[1], loaded with the options in o.
local function load_trace(args, o, verb)
  local path = args[1]
  if not path or path:match("^%-") then
    input_error("%s: give a trace file (fio iolog, blktrace, MSR or Alibaba CSV; doc/replay.md)", verb)
  end
  return iomoon.trace.load(path, { format = o["trace-format"], device = o.device, from = o.from, to = o.to,
    skip_bad = o["skip-bad"] or nil })
end

--- iomoon replay TRACE --target PATH [--speed X] [--no-stall]
-- [--offsets exact|wrap|scale] [--loop N] [options]: one phase that plays
-- the trace back (doc/replay.md).
function cli.replay(args)
  local o, rest = parse_options(args, 1, with(with(with(OUTPUT_OPTS, TARGET_OPTS), TRACE_OPTS), {
    speed = "value", ["no-stall"] = "flag", offsets = "value", loop = "value", name = "value",
  }))
  args = { the_file(rest, "give a trace file (fio iolog, blktrace, MSR or Alibaba CSV; doc/replay.md)") }
  if o.ramp then input_error("--ramp: a replay is measured from its first record (give no ramp)") end
  local tr = load_trace(args, o, "replay")
  local t = target_spec(o, nil)
  local ov = common_overrides(o)
  local phase = {
    name = o.name or ("replay of " .. args[1]:match("[^/]*$")),
    target = t, region = not t and (o.size or "1g") or nil,
    qd = ov.qd, workers = ov.workers, engine = ov.engine, direct = ov.direct, duration = o.time,
    replay = { trace = tr, speed = number_opt(o, "speed"), no_stall = o["no-stall"] or nil, offsets = o.offsets,
      loop = number_opt(o, "loop", true) },
  }
  if phase.target and not phase.target.size and not iomoon.stat(o.target) and not util.is_url(o.target) then
    -- a new file as large as the trace reaches (whole MiB), so offsets land as recorded
    local reach = iomoon.trace.profile(tr).offset_end_bytes
    phase.target.size = math.max(1, (reach + (1 << 20) - 1) >> 20) << 20
  end
  return run_reported("iomoon replay: ", o, function() iomoon.run(phase) end, nil, { { path = t and t.path } },
    function() iomoon.check(phase) end)
end

--- iomoon trace profile TRACE: the profile of a trace, printed.
function cli.trace(args)
  local what = args[1]
  if what ~= "profile" then
    input_error("trace: '%s' is not a trace command (iomoon trace profile TRACE)", tostring(what))
  end
  local o, rest = parse_options(args, 2, with(TRACE_OPTS, { format = "value" }))
  local tr = load_trace({ the_file(rest, "give a trace file (iomoon trace profile TRACE; doc/replay.md)") }, o,
    "trace profile")
  local p = iomoon.trace.profile(tr)
  if o.format == "json" then
    io.stdout:write(json.encode(p, "  "), "\n")
  elseif o.format and o.format ~= "table" then
    input_error("--format: '%s' is not a format for a profile (table or json)", o.format)
  else
    trace.print_profile(p)
  end
  return 0
end

function cli.list()
  local engines, auto = iomoon.engines()
  print("engines:")
  for _, e in ipairs(engines) do
    print(string.format("  %-9s %s%s", e.name, e.works and "works" or ("unavailable: " .. e.why),
      e.name == auto and "  (auto picks this)" or ""))
  end
  print("many hosts: " .. iomoon.cluster.build)
  print("suites:")
  for _, n in ipairs(suite.list()) do
    local ok, s = pcall(suite.load, n)
    print(string.format("  %-20s %s", n, util.shown(ok and s.description or "(does not load: " .. tostring(s) .. ")")))
  end
  return 0
end

-- USAGE with the engines of the core's table in place of ENGINES
local function usage()
  local names = { "auto" }
  for _, e in ipairs((iomoon.engines())) do names[#names + 1] = e.name end
  return (USAGE:gsub("ENGINES", table.concat(names, "|")))
end

--- The verbs of `handlers`, sorted, with help.
function cli.verbs(handlers)
  local names = { "help" }
  for k in pairs(handlers) do names[#names + 1] = k end
  table.sort(names)
  return names
end

-- The command line as a shell would take it back: words with anything but
-- letters, digits and -_./=:,@+% quoted in '...'; no URL's password.
local function command_text(args)
  local words = { "iomoon" }
  for _, a in ipairs(args) do
    words[#words + 1] = a:find("^[%w%-_./=:,@+%%]+$") and a or "'" .. a:gsub("'", "'\\''") .. "'"
  end
  return iomoon.redact(table.concat(words, " "))
end

function cli.main(args)
  local cmd = args[1]
  report.command = command_text(args) -- the JSON document says what ran
  local rest = { table.unpack(args, 2) }
  local handlers = {
    run = cli.run, suite = cli.suite, quick = cli.quick, list = cli.list,
    report = cli.report, compare = cli.compare, rerun = cli.rerun, replay = cli.replay, trace = cli.trace,
    verify = cli.verify,
    -- verbs of their own modules, which get the command line's parts (cli.lib)
    fio = function(a) return fio.cli(a, cli.lib) end,
    ping = function(a) return ping.cli(a, cli.lib) end,
    convert = function(a) return iometer.convert_cli(a, cli.lib) end,
  }
  if cmd == nil or cmd == "help" or cmd == "--help" or cmd == "-h" then
    io.stdout:write(usage())
    return cmd == nil and 2 or 0
  end
  if cmd == "--version" or cmd == "version" then
    print("iomoon " .. iomoon.version .. " (" .. _VERSION .. ")")
    return 0
  end
  local h = handlers[cmd]
  if h and (rest[1] == "--help" or rest[1] == "-h") then
    io.stdout:write(usage()) -- iomoon quick --help: what a user tries first
    return 0
  end
  if not h then
    io.stderr:write(string.format("iomoon: unknown command '%s' (%s)\n", util.shown(cmd),
      table.concat(cli.verbs(handlers), ", ")))
    return 2
  end
  local status, err, rc = protect(h, rest)
  if status ~= 0 then
    -- phase fields are named by the options that set them, where there are such
    io.stderr:write("iomoon ", cmd, ": ", error_text(err, (cmd == "quick" or cmd == "suite" or cmd == "rerun") and OPTION_OF
      or cmd == "verify" and VERIFY_OPTION_OF), "\n")
    return status
  end
  return rc
end

-- The command line's parts, for verbs that live in modules of their own
-- (iomoon.fio, iomoon.iometer): option parsing, targets, reporting.
cli.lib = {
  parse_options = parse_options, run_reported = run_reported, target_spec = target_spec,
  common_overrides = common_overrides, no_stray = no_stray, number_opt = number_opt, with = with,
  OUTPUT_OPTS = OUTPUT_OPTS, TARGET_OPTS = TARGET_OPTS, OPTION_OF = OPTION_OF, input_error = input_error,
  emit = emit,
}

return cli
