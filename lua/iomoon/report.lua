-- iomoon.report: results as the tables, CSV and JSON our users read.
--
-- The table has the columns of the IOMeter result sheets in the field
-- reports (Test name, Latency, Avg iops, Avg MBps, cpu load) with p99 added.
-- IOMeter's "MBps" is binary (2^20 bytes per second), so the column is
-- labelled MiB/s: the same quantity, named for what it is.
--
-- What every format shows of a result (its rows, its marks, the table's
-- columns) is iomoon.report.rows; where a report goes (the output path's
-- check, the atomic writer, the file kept complete) iomoon.report.file;
-- the HTML page iomoon.html. This module holds the formats and gives all
-- of it under the names doc/lua-library.md documents.

local iomoon = require "iomoon"
local json = require "iomoon.json"
local errors = require "iomoon.errors"
local util = require "iomoon.util"
local rows = require "iomoon.report.rows"
local file = require "iomoon.report.file"
local html = require "iomoon.html"
local compare = require "iomoon.compare"
local fio_json = require "iomoon.fio.json"
local fio_terse = require "iomoon.fio.terse"

local report = {}

local function ms(ns) return (ns or 0) / 1e6 end

-- The SNIA PTS section (iomoon.report.pts) of results, or nil when none
-- of them is a PTS phase; loaded only then (start-up time).
local function pts_of(results)
  for _, r in ipairs(results or {}) do
    local m = type(r) == "table" and util.opt(util.opt(r, "meta"), "pts")
    if type(m) == "table" then return require "iomoon.report.pts" end -- lazy load: start-up time
  end
  return nil
end
report.pts_of = pts_of

-- a pass/fail suite's verdict (iomoon.report.verdict): its section in each format
local verdict = require "iomoon.report.verdict"
report.verdict, report.verdict_text = verdict.of, verdict.text

local opt, whole, fig, number, all_rows = util.opt, util.whole, rows.fig, rows.number, rows.all

--- s as one line of text may show it (util.shown, the library's one
-- escaper: control characters as \n, \r, \t or \xHH, C1 controls as
-- \u0080 to \u009f, bytes that are not UTF-8 as \xHH, a URL's password left out).
report.visible = util.shown
local visible = util.shown

-- what every format shows of a result (iomoon.report.rows)
report.asked_rate, report.rate_met, report.replay_cut = rows.asked_rate, rows.rate_met, rows.replay_cut
report.replay_text, report.replay_cells = rows.replay_text, rows.replay_cells
report.marks, report.verify_text, report.columns = rows.marks, rows.verify_text, rows.columns
report.is_host, report.host_result, report.rows, report.ops = rows.is_host, rows.host_result, rows.of, rows.ops
report.target_paths, report.machine, report.setup = rows.target_paths, rows.machine, rows.setup
report.cluster_setup = rows.cluster_setup

-- where a report goes (iomoon.report.file)
report.write_atomic, report.check_output = file.write_atomic, file.check_output

-- a row's trouble (report.marks), then what its verification looked at
local function status(r)
  local m = report.marks(r)
  m[#m + 1] = report.verify_text(r)
  return #m > 0 and "  " .. table.concat(m, "; ") or ""
end

local HOST_NAME_MAX = 64 -- the widest a host's row widens the table's first column

-- name cut to `width` bytes with "..." (at a UTF-8 character's start), so
-- a long name keeps its row's figures in their columns
local function cell_name(name, width)
  if #name <= width then return name end
  local cut = width - 3
  while cut > 0 and (name:byte(cut + 1) or 0) & 0xC0 == 0x80 do cut = cut - 1 end
  return name:sub(1, cut) .. "..."
end

--- A table writer: w:header([result]), w:row(result); `name_width` sizes
-- column 1 (the header widens it to fit the rows of its result, streams'
-- and hosts', up to 64, and w:fit(results) to fit theirs; a longer name is
-- cut with "...", so the figures stay in their columns). A name's control characters are shown escaped
-- (report.visible), so a row is always one line. A result with streams
-- writes one row per stream and then its total (report.rows). Above the
-- header, and above a row whose setup differs from the last one said, a
-- line says how the phase ran (report.setup: engine, O_DIRECT, test area);
-- `machine` describes the targets (nil: this machine's, iomoon.machine;
-- false: none, the paths alone).
function report.table_writer(out, name_width, machine)
  local w = { out = out, name_width = math.max(name_width or 0, 9) }
  -- the setup line of result r, when it is not the last one written
  function w:setup(r)
    local m = machine
    if m == nil then m = report.machine({ r }) end
    local line = report.setup(r, m)
    if line ~= self.said then self.out:write(line, "\n") end
    self.said = line
  end
  -- widen column 1 to the names of the hosts' rows of results (at most
  -- HOST_NAME_MAX wide), so that a cluster's rows stay aligned
  function w:fit(results)
    for _, res in ipairs(results) do
      for _, row in ipairs(report.rows(res)) do
        self.name_width = math.max(self.name_width, math.min(#visible(row.result.name), HOST_NAME_MAX))
      end
    end
  end
  function w:header(result)
    if result then self:fit({ result }); self:setup(result) end
    local cells = { string.format("%-" .. self.name_width .. "s", "Test name") }
    for _, c in ipairs(report.columns) do
      cells[#cells + 1] = string.format("%" .. c[2] .. "s", c[1])
    end
    self.out:write(table.concat(cells, "  "), "\n")
  end
  -- one line: the name, the columns of r, then text
  function w:line(name, r, text)
    local cells = { string.format("%-" .. self.name_width .. "s", cell_name(name, self.name_width)) }
    for _, c in ipairs(report.columns) do
      cells[#cells + 1] = string.format("%" .. c[2] .. "s", c[3](r))
    end
    self.out:write(table.concat(cells, "  "), text, "\n")
  end
  -- the rows of one result (report.rows: its streams', then its own),
  -- each followed by its syncs' and trims' rows (report.ops), indented,
  -- and how faithful its replay was (report.replay_text)
  function w:row(result)
    if self.said then self:setup(result) end
    for _, row in ipairs(report.rows(result)) do
      local r = row.result
      self:line(visible(r.name), r, status(r))
      for _, op in ipairs(report.ops(r)) do self:line("  " .. op.label, op.result, "  " .. op.text) end
      local rp = report.replay_text(r)
      if rp then self.out:write("  ", rp, "\n") end
      local dt = not row.rank and report.data_text(r)
      if dt then self.out:write("  ", dt, "\n") end
    end
    self.out:flush()
  end
  return w
end

-- a share of the machine's CPUs in result.cpu (doc/lua-api.md): "12.34",
-- or "" when the result has none (one saved by an iomoon before it)
local function cpu_cell(key)
  return function(r)
    local v = number(opt(opt(r, "cpu"), key))
    return v and string.format("%.2f", v) or ""
  end
end

local function target_type(r)
  local t = type(r.target) == "table" and r.target[1] or r.target
  if t == "(none)" then return "NONE" end -- the nominal region of null and sim
  return t and t:match("^/dev/") and "DISK" or "FILE"
end

-- ---- what a row asked: its access specs ----

-- the specs a row ran (result.mix), and whether their weights are one
-- mix's (a phase's total of streams gives every stream's, unweighted)
local function specs_of(r)
  local mix = opt(r, "mix")
  if type(mix) == "table" and #mix > 0 then return mix, true end
  local out = {}
  local streams = opt(r, "streams")
  for _, st in ipairs(type(streams) == "table" and streams or {}) do
    local m = opt(st, "mix")
    for _, sp in ipairs(type(m) == "table" and m or {}) do out[#out + 1] = sp end
  end
  return out, false
end

-- a share as a CSV cell: 70, 33.88
local function pct_text(x)
  if type(x) ~= "number" then return "" end
  return x == math.floor(x) and string.format("%d", x) or (string.format("%.2f", x):gsub("0$", ""))
end

-- the row's asked share k (read_pct, random_pct): its mix's, weighted by
-- each spec's weight; of a total of streams, theirs when all agree, else ""
local function share(r, k)
  local specs, weighted = specs_of(r)
  if #specs == 0 then return "" end
  local sum, w, first, same = 0, 0, opt(specs[1], k), true
  for _, sp in ipairs(specs) do
    local v, wt = number(opt(sp, k)), number(opt(sp, "weight_pct")) or 0
    if not v then return "" end
    sum, w, same = sum + v * wt, w + wt, same and v == first
  end
  if weighted and w > 0 then return pct_text(sum / w) end
  return same and pct_text(first) or ""
end

-- the block sizes a row asked, each once, in bytes: "4096", "8192/65536"
local function block_sizes(r)
  local out, seen = {}, {}
  for _, sp in ipairs((specs_of(r))) do
    local bs = opt(sp, "bs")
    for _, b in ipairs(type(bs) == "table" and bs or {}) do
      if type(b) == "number" and not seen[b] then seen[b] = true; out[#out + 1] = whole(b) end
    end
  end
  return table.concat(out, "/")
end

-- one spec as I/O Analyzer names it (presets.name): "8k_55%Read_80%Random",
-- its block sizes joined by / when it has several
local function spec_name(sp)
  local sizes = {}
  for _, b in ipairs(type(opt(sp, "bs")) == "table" and sp.bs or {}) do
    sizes[#sizes + 1] = type(b) == "number" and util.analyzer_size(b) or "?"
  end
  return string.format("%s_%s%%Read_%s%%Random", table.concat(sizes, "/"), pct_text(opt(sp, "read_pct")),
    pct_text(opt(sp, "random_pct")))
end

--- The access spec a row asked, as one cell: the phase's meta.spec when
-- it gives one (the io-analyzer suite's, an IOMeter file's), else its mix
-- as I/O Analyzer names specs ("8k_55%Read_80%Random"; several, each
-- with its weight, "60% 4k_100%Read_100%Random + 40% ..."); for a total of
-- streams, theirs when they all ran the same, else "".
function report.access_spec(r)
  local given = opt(opt(r, "meta"), "spec")
  if type(given) == "string" then return given end
  local specs, weighted = specs_of(r)
  local names, same = {}, true
  for i, sp in ipairs(specs) do
    names[i] = spec_name(sp)
    same = same and names[i] == names[1]
  end
  if #names == 0 or (not weighted and not same) then return "" end
  if #names == 1 or not weighted then return names[1] end
  for i, sp in ipairs(specs) do names[i] = pct_text(opt(sp, "weight_pct")) .. "% " .. names[i] end
  return table.concat(names, " + ")
end

--- Whether a row did or asked I/O of direction d ("read", "write"): it
-- did some, or its mix asks some (a read share below 100 % asks writes;
-- above 0 %, reads). A row that neither did nor asked any leaves that
-- direction's CSV columns empty (a read-only phase has no write figures,
-- not 0.0000).
function report.has_direction(r, d)
  if (number(opt(opt(r, d), "ios")) or 0) > 0 then return true end
  for _, sp in ipairs((specs_of(r))) do
    local read = number(opt(sp, "read_pct"))
    if read and (d == "read" and read > 0 or d == "write" and read < 100) then return true end
  end
  return false
end

-- a figure of direction d: "" on a row without it (report.has_direction)
local function dir_fig(d, f)
  return function(r)
    if not report.has_direction(r, d) then return "" end
    return f(r[d])
  end
end
local function f2(k) return function(o) return string.format("%.2f", o[k]) end end
local function ms4(k) return function(o) return string.format("%.4f", ms(o.lat[k])) end end
local function raw_of(k) return function(o) return o[k] end end

--- What a phase's writes carried (result.data), when it was not iomoon's
-- plain random data: "data: compress 2 (1.98 measured), dedupe 2 (1.99
-- measured)", "data: repeat (measured: compress 157.54, dedupe 16.00)",
-- ", of the writes issued" after the dedupe when written_once is false;
-- nil for plain random, a phase that did not write, or an older result.
function report.data_text(r)
  local d = opt(r, "data")
  if type(d) ~= "table" then return nil end
  local c, dd = number(opt(d, "compress")), number(opt(d, "dedupe"))
  local cm, dm = number(opt(d, "compress_measured")), number(opt(d, "dedupe_measured"))
  if d.pattern == "random" and c == 1 and dd == 1 then return nil end
  local function m(x) return x and string.format("%.2f", x) or "-" end
  -- the figures are the writes': say so when the disk may hold less
  local of = opt(d, "written_once") == false and ", of the writes issued" or ""
  if d.pattern ~= "random" then
    return string.format("data: %s (measured: compress %s, dedupe %s%s)", d.pattern, m(cm), m(dm), of)
  end
  return string.format("data: compress %g (%s measured), dedupe %g (%s measured%s)", c or 1, m(cm), dd or 1, m(dm), of)
end

local function data_cell(k, fmt)
  return function(r)
    local d = opt(r, "data")
    local v = type(d) == "table" and opt(d, k)
    if v == nil or v == false then return "" end
    return fmt and string.format(fmt, v) or tostring(v)
  end
end

--- CSV columns in the order of IOMeter's results.csv where they apply
-- (response times in ms, MBps binary and decimal), then iomoon's own;
-- every time's header says its unit. A read's or a write's figures are
-- empty on a row without that direction (report.has_direction).
report.csv_columns = {
  { "Target Type", target_type },
  { "Target Name", function(r) return type(r.target) == "table" and table.concat(r.target, " ") or r.target end },
  { "Access Specification Name", function(r) return r.name end },
  { "# Workers", function(r) return r.workers end },
  { "# Disks", function(r) return type(r.target) == "table" and #r.target or 1 end },
  { "IOps", function(r) return string.format("%.2f", r.iops) end },
  { "Read IOps", dir_fig("read", f2("iops")) },
  { "Write IOps", dir_fig("write", f2("iops")) },
  { "MBps (Binary)", function(r) return string.format("%.2f", r.mib_per_s) end },
  { "Read MBps (Binary)", dir_fig("read", f2("mib_per_s")) },
  { "Write MBps (Binary)", dir_fig("write", f2("mib_per_s")) },
  { "MBps (Decimal)", function(r) return string.format("%.2f", r.mb_per_s) end },
  { "Read MBps (Decimal)", dir_fig("read", f2("mb_per_s")) },
  { "Write MBps (Decimal)", dir_fig("write", f2("mb_per_s")) },
  { "Average Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.mean_ns)) end },
  { "Average Read Response Time (ms)", dir_fig("read", ms4("mean_ns")) },
  { "Average Write Response Time (ms)", dir_fig("write", ms4("mean_ns")) },
  { "Maximum Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.max_ns)) end },
  { "Maximum Read Response Time (ms)", dir_fig("read", ms4("max_ns")) },
  { "Maximum Write Response Time (ms)", dir_fig("write", ms4("max_ns")) },
  { "Errors", function(r) return r.errors end },
  { "Read Errors", dir_fig("read", raw_of("errors")) },
  { "Write Errors", dir_fig("write", raw_of("errors")) },
  { "Bytes Read", dir_fig("read", raw_of("bytes")) },
  { "Bytes Written", dir_fig("write", raw_of("bytes")) },
  { "Read I/Os", dir_fig("read", raw_of("ios")) },
  { "Write I/Os", dir_fig("write", raw_of("ios")) },
  -- as IOMeter's: the machine's CPUs, % CPU Utilization = % User Time + % Privileged Time
  { "% CPU Utilization", cpu_cell("util_pct") },
  { "% User Time", cpu_cell("user_pct") },
  { "% Privileged Time", cpu_cell("sys_pct") },
  { "Queue Depth", function(r) return r.qd end },
  -- iomoon's own, units in the names
  { "Engine", function(r) return r.engine end },
  -- what it asked: the access spec, its block sizes, read and random shares
  { "Access Spec (as asked)", function(r) return report.access_spec(r) end },
  { "Block Size (bytes)", block_sizes },
  { "Read %", function(r) return share(r, "read_pct") end },
  { "Random %", function(r) return share(r, "random_pct") end },
  { "Measured Time (s)", function(r) return string.format("%.3f", r.seconds) end },
  -- iomoon's own CPU beside the machine's: shares of the machine, then of one CPU
  { "iomoon CPU (% of the machine)", cpu_cell("self_pct") },
  { "Other Work CPU (% of the machine)", cpu_cell("other_pct") },
  { "Busiest Worker CPU (% of one CPU)", cpu_cell("worker_max_pct") },
  { "Worker Wait for a CPU (% of its time)", cpu_cell("wait_pct") },
  { "p50 Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.p50_ns)) end },
  { "p99 Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.p99_ns)) end },
  { "p99.9 Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.p999_ns)) end },
  { "p99.99 Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.p9999_ns)) end },
  { "Interrupted", function(r) return r.interrupted and "yes" or "no" end },
  { "Failed", function(r) return r.failed and "yes" or "no" end },
  -- what the writes carried (result.data): asked, and measured
  { "Data Pattern", data_cell("pattern") },
  { "Compress", data_cell("compress", "%g") },
  { "Compress Measured (lz4)", data_cell("compress_measured", "%.2f") },
  { "Dedupe", data_cell("dedupe", "%g") },
  { "Dedupe Measured", data_cell("dedupe_measured", "%.2f") },
  -- open loop: the asked rate, and whether at least 99 % of it was achieved
  { "Asked IOps", function(r) local a = report.asked_rate(r); return a and string.format("%.2f", a) or "" end },
  { "Rate Met", function(r) local met = report.rate_met(r); return met == nil and "" or met and "yes" or "no" end },
  -- who set the figures (result.bottleneck), the I/Os in flight, and the
  -- warning every format gives a "tool" row (report.tool_mark)
  { "Bottleneck", function(r) local b = opt(r, "bottleneck"); return type(b) == "string" and b or "" end },
  { "In Flight (mean)", function(r) local m = number(opt(opt(r, "inflight"), "mean")); return m and string.format("%.2f", m) or "" end },
  { "Warning", function(r) return rows.no_io_mark(r) or rows.tool_mark(r) or "" end },
}

-- a cell a spreadsheet would run as a formula gets a leading '
local csv_safe = util.csv_safe

-- a cell of an op type a row may lack (sync, trim): "" when it has none
local function op_cell(op, f)
  return function(r)
    local o = opt(r, op)
    return o and f(o) or ""
  end
end

--- The columns a CSV report gains after IOMeter's and iomoon's own when one
-- of its rows trims or syncs (fsync, fdatasync): their rates and response
-- times in ms, as IOMeter's columns for reads and writes; "" on a row
-- without them.
report.csv_op_columns = {
  { "Trim IOps", op_cell("trim", function(o) return string.format("%.2f", o.iops) end) },
  { "Trim MBps (Binary)", op_cell("trim", function(o) return string.format("%.2f", o.mib_per_s) end) },
  { "Average Trim Response Time (ms)", op_cell("trim", function(o) return string.format("%.4f", ms(o.lat.mean_ns)) end) },
  { "Maximum Trim Response Time (ms)", op_cell("trim", function(o) return string.format("%.4f", ms(o.lat.max_ns)) end) },
  { "Trim Errors", op_cell("trim", function(o) return o.errors end) },
  { "Sync IOps", op_cell("sync", function(o) return string.format("%.2f", o.iops) end) },
  { "Average Sync Response Time (ms)", op_cell("sync", function(o) return string.format("%.4f", ms(o.lat.mean_ns)) end) },
  { "p99 Sync Response Time (ms)", op_cell("sync", function(o) return string.format("%.4f", ms(o.lat.p99_ns)) end) },
  { "Maximum Sync Response Time (ms)", op_cell("sync", function(o) return string.format("%.4f", ms(o.lat.max_ns)) end) },
  { "Sync Errors", op_cell("sync", function(o) return o.errors end) },
  -- each write with its own sync: the two as one (result.commit), a database's commit
  { "Commit IOps", op_cell("commit", function(o) return string.format("%.2f", o.iops) end) },
  { "Average Commit Response Time (ms)", op_cell("commit", function(o) return string.format("%.4f", ms(o.lat.mean_ns)) end) },
  { "p99 Commit Response Time (ms)", op_cell("commit", function(o) return string.format("%.4f", ms(o.lat.p99_ns)) end) },
}

--- The columns a CSV report gains, last, when one of its rows is a files
-- phase: for each operation one of them ran (result.ops), "create Ops",
-- "create Ops/s", "create Mean Latency (ms)", "create Max Latency (ms)",
-- "create Errors"; "" on rows without it.
function report.csv_file_op_columns(list)
  local seen = {}
  for _, lr in ipairs(list) do
    local ops = opt(lr.result, "ops")
    if type(ops) == "table" then for k in pairs(ops) do seen[k] = true end end
  end
  local cols = {}
  local function cell(name, f)
    return function(r)
      local o = type(opt(r, "ops")) == "table" and opt(r, "ops")[name] or nil
      return o and f(o) or ""
    end
  end
  for _, name in ipairs(rows.file_ops) do
    if seen[name] then
      cols[#cols + 1] = { name .. " Ops", cell(name, function(o) return o.ops end) }
      cols[#cols + 1] = { name .. " Ops/s", cell(name, function(o) return string.format("%.2f", o.ops_per_s) end) }
      cols[#cols + 1] = { name .. " Mean Latency (ms)", cell(name, function(o) return string.format("%.4f", ms(o.lat.mean_ns)) end) }
      cols[#cols + 1] = { name .. " Max Latency (ms)", cell(name, function(o) return string.format("%.4f", ms(o.lat.max_ns)) end) }
      cols[#cols + 1] = { name .. " Errors", cell(name, function(o) return o.errors end) }
    end
  end
  return cols
end

--- The columns a CSV report gains, after all the others, when one of its
-- phases has streams: the phase's name, and the stream's number (1, 2 ...)
-- on a stream's row, "All" on the phase's total row (empty on the row of a
-- phase without streams).
report.csv_stream_columns = {
  { "Phase Name", function(row) return row.phase or row.result.name end },
  { "Stream", function(row) return row.stream or "" end },
}

--- The columns a CSV report gains, after the stream columns, when one of
-- its phases ran on several hosts (report.rows): the host's name and rank
-- on a host's row, "All" and "" on the phase's other rows, "" and "" on the
-- rows of a phase run on one host.
report.csv_host_columns = {
  { "Host", function(row) return row.host or "" end },
  { "Rank", function(row) return row.rank or "" end },
}

-- a cell of result.replay's field k: "" on a row without a replay
local function replay_cell(k, f, scale)
  return function(r)
    local v = opt(opt(r, "replay"), k)
    if type(v) ~= "number" then return "" end
    return f and string.format(f, v / (scale or 1)) or whole(v)
  end
end

--- The columns a CSV report gains, after the host columns, when one of its
-- rows replays a trace (result.replay, doc/replay.md): the records the
-- replay would issue to its end (0: it loops until the phase ends), due,
-- issued, on time, late, missed (due, never issued), cut (not due), the
-- on-time share of those due, the lag's p50, p99 and maximum in ms, and
-- report.replay_cut's line ("" when the replay was not cut); all "" on a
-- row without a replay.
report.csv_replay_columns = {
  { "Replay Records", replay_cell("planned_ios") },
  { "Replay Due", replay_cell("due_ios") },
  { "Replay Issued", replay_cell("ios") },
  { "Replay On Time", replay_cell("on_time_ios") },
  { "Replay Late", replay_cell("late_ios") },
  { "Replay Missed", replay_cell("missed_ios") },
  { "Replay Cut", replay_cell("cut_ios") },
  { "Replay On Time %", replay_cell("on_time_pct", "%.2f") },
  { "Replay Lag p50 (ms)", replay_cell("lag_p50_ns", "%.4f", 1e6) },
  { "Replay Lag p99 (ms)", replay_cell("lag_p99_ns", "%.4f", 1e6) },
  { "Replay Lag Max (ms)", replay_cell("lag_max_ns", "%.4f", 1e6) },
  { "Replay Status", function(r) return report.replay_cut(r) or "" end },
}

-- a cell of result.verify: "" on a row without one (or without the field)
local function verify_cell(k)
  return function(row)
    local v = number(opt(opt(row.result, "verify"), k))
    return v and whole(v) or ""
  end
end

--- The columns a CSV report gains, after the replay columns, when one of its
-- rows verified with crc32c (result.verify): the units checked against
-- their headers, never written and blank, never written but holding other
-- data (unexpected), skipped, the unit's bytes and where the written area
-- ends; "" on the rows of other phases.
report.csv_verify_columns = {
  { "Units Checked", verify_cell("units_checked") },
  { "Units Never Written", verify_cell("units_unwritten") },
  { "Units Unexpected", verify_cell("units_unexpected") },
  { "Units Skipped", verify_cell("units_skipped") },
  { "Unit Bytes", verify_cell("unit_bytes") },
  { "Written End Bytes", verify_cell("written_end_bytes") },
}

--- The columns a CSV report gains, after the verify columns, when one of
-- its rows is an after_crash pass (result.crash): the units of each class;
-- "" on the rows of other phases.
report.csv_crash_columns = {}
for _, k in ipairs(rows.crash_classes) do
  local key = k[1]
  report.csv_crash_columns[#report.csv_crash_columns + 1] = {
    "Crash " .. key:gsub("_", " "):gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end),
    function(row)
      local v = number(opt(opt(row.result, "crash"), key))
      return v and whole(v) or ""
    end }
end

-- "" for a figure a host does not have, else f(v)
local function host_fig(f, key, scale)
  return function(r)
    local v = key:find("%.") and opt(r[key:match("^[^.]+")], key:match("[^.]+$")) or r[key]
    return type(v) == "number" and string.format(f, v / (scale or 1)) or ""
  end
end

--- The CSV columns a host's row fills (report.host_result), by header: the
-- figures each rank reports; every other cell of a host's row is "" (the
-- host has no read/write split, no p99.9, ...: never the cluster's figure).
report.csv_host_cells = {
  ["Access Specification Name"] = function(r) return r.name end,
  ["IOps"] = host_fig("%.2f", "iops"), ["MBps (Binary)"] = host_fig("%.2f", "mib_per_s"),
  ["MBps (Decimal)"] = host_fig("%.2f", "mb_per_s"),
  ["Average Response Time (ms)"] = host_fig("%.4f", "lat.mean_ns", 1e6),
  ["Maximum Response Time (ms)"] = host_fig("%.4f", "lat.max_ns", 1e6),
  ["Errors"] = function(r) return r.errors and whole(r.errors) or "" end,
  ["% CPU Utilization"] = cpu_cell("util_pct"),
  ["% User Time"] = cpu_cell("user_pct"),
  ["% Privileged Time"] = cpu_cell("sys_pct"),
  ["iomoon CPU (% of the machine)"] = cpu_cell("self_pct"),
  ["Measured Time (s)"] = host_fig("%.3f", "seconds"),
  ["p50 Response Time (ms)"] = host_fig("%.4f", "lat.p50_ns", 1e6),
  ["p99 Response Time (ms)"] = host_fig("%.4f", "lat.p99_ns", 1e6),
  ["Interrupted"] = function(r) return r.interrupted and "yes" or "no" end,
  ["Failed"] = function(r) return r.failed and "yes" or "no" end,
}

-- "" for nil, else v
local function blank(v) return v == nil and "" or v end

-- the cells a host's row has of what it ran: workers, qd and its number of targets
report.csv_host_cells["# Workers"] = function(r) return blank(r.workers) end
report.csv_host_cells["Queue Depth"] = function(r) return blank(r.qd) end
report.csv_host_cells["# Disks"] = function(r) return blank(r.ntargets) end

--- The CSV columns the total row of a phase run on several hosts fills
-- otherwise than rank 0's result would (report.cluster_setup): the
-- workers and targets of all the hosts (Target Name "N targets"; "(none)"
-- and NONE on null and sim), the queue depth the hosts share (a queue
-- depth is per worker; "" when theirs differ); "" where the hosts do not
-- say.
report.csv_cluster_cells = {
  ["# Workers"] = function(cs) return blank(cs.workers) end,
  ["Queue Depth"] = function(cs) return blank(cs.qd) end,
  ["# Disks"] = function(cs) return blank(cs.targets) end,
  ["Target Name"] = function(cs)
    if not cs.targets then return "" end
    return cs.targets == 0 and "(none)" or string.format("%d target%s", cs.targets, cs.targets == 1 and "" or "s")
  end,
  ["Target Type"] = function(cs) return cs.targets == 0 and "NONE" or "" end,
}

-- a column's cell for result r: a host's row fills only report.csv_host_cells,
-- the total of a phase on several hosts takes report.csv_cluster_cells
local function csv_cell(c, r)
  if not report.is_host(r) then
    local f, cs = report.csv_cluster_cells[c[1]], report.cluster_setup(r)
    if f and cs then return f(cs) end
    return c[2](r)
  end
  local f = report.csv_host_cells[c[1]]
  return f and f(r) or ""
end

--- The CSV rows (header first) of a list of results, as lists of strings:
-- one row per report.rows row. The header is IOMeter's columns and
-- iomoon's (report.csv_columns), then report.csv_op_columns when a row
-- trims or syncs, then report.csv_stream_columns when a result has
-- streams, then report.csv_host_columns when a result ran on several
-- hosts, then report.csv_replay_columns when a row replays a trace, then
-- report.csv_verify_columns when a row verified with crc32c, then
-- report.csv_crash_columns when a row judged a crash; without them,
-- exactly as before they existed.
function report.csv_rows(results)
  local list = all_rows(results)
  local streams, hosts, ops, replays, verify, crash = false, false, false, false, false, false
  for _, lr in ipairs(list) do
    ops = ops or opt(lr.result, "sync") ~= nil or opt(lr.result, "trim") ~= nil
    streams, hosts = streams or lr.stream ~= nil, hosts or lr.host ~= nil
    replays = replays or type(opt(lr.result, "replay")) == "table"
    verify = verify or type(opt(lr.result, "verify")) == "table"
    crash = crash or type(opt(lr.result, "crash")) == "table"
  end
  local fops = report.csv_file_op_columns(list)
  local rows = { {} }
  local function add(row, cols, arg, cellf)
    for _, c in ipairs(cols) do
      local v
      if arg ~= nil then v = cellf and cellf(c, arg) or not cellf and c[2](arg) or nil end
      row[#row + 1] = arg and csv_safe(v) or c[1]
    end
  end
  add(rows[1], report.csv_columns)
  if ops then add(rows[1], report.csv_op_columns) end
  if streams then add(rows[1], report.csv_stream_columns) end
  if hosts then add(rows[1], report.csv_host_columns) end
  if replays then add(rows[1], report.csv_replay_columns) end
  if verify then add(rows[1], report.csv_verify_columns) end
  if crash then add(rows[1], report.csv_crash_columns) end
  if #fops > 0 then add(rows[1], fops) end
  for _, lr in ipairs(list) do
    local row = {}
    add(row, report.csv_columns, lr.result, csv_cell)
    if ops then add(row, report.csv_op_columns, lr.result, csv_cell) end
    if streams then add(row, report.csv_stream_columns, lr) end
    if hosts then add(row, report.csv_host_columns, lr) end
    if replays then add(row, report.csv_replay_columns, lr.result, csv_cell) end
    if verify then add(row, report.csv_verify_columns, lr) end
    if crash then add(row, report.csv_crash_columns, lr) end
    if #fops > 0 then add(row, fops, lr.result) end
    rows[#rows + 1] = row
  end
  return rows
end

--- CSV as a string: RFC 4180, every field quoted, CRLF line ends.
function report.csv_string(results)
  local s = iomoon.csv.format(report.csv_rows(results))
  local p = pts_of(results)
  local rows = p and p.csv_rows(results)
  if rows then s = s .. "\r\n" .. iomoon.csv.format(rows) end -- the PTS window table, after an empty line
  local v = verdict.csv_rows(results)
  if v then s = s .. "\r\n" .. iomoon.csv.format(v) end -- the verdict, after an empty line
  return s
end

--- Write results as CSV to `path`, atomically (report.write_atomic).
function report.write_csv(path, results)
  report.write_atomic(path, report.csv_string(results))
end

--- VMware I/O Analyzer's raw result block for one result (MBps binary, as
-- the Analyzer's are). The access spec is named by spec_name, else the
-- phase's meta.spec, else the phase's name, its control characters shown
-- escaped (a name cannot add a line). A result with trouble adds
-- `Errors=N` and `Status=` (report.marks) after the Analyzer's lines.
function report.analyzer_block(r, spec_name)
  local lines = {
    "AccessSpec=" .. visible(spec_name or opt(opt(r, "meta"), "spec") or r.name),
    string.format("IOps=%.2f", r.iops),
    string.format("ReadIOps=%.2f", r.read.iops),
    string.format("WriteIOps=%.2f", r.write.iops),
    string.format("MBps=%.2f", r.mib_per_s),
    string.format("ReadMBps=%.2f", r.read.mib_per_s),
    string.format("WriteMBps=%.2f", r.write.mib_per_s),
  }
  local m = report.marks(r)
  if #m > 0 then
    lines[#lines + 1] = string.format("Errors=%d", r.errors or 0)
    lines[#lines + 1] = "Status=" .. table.concat(m, "; ")
  end
  return table.concat(lines, "\n") .. "\n"
end

--- All results as Analyzer blocks, a blank line between them; a phase
-- with streams gives a block per stream (its access spec named "PHASE /
-- STREAM") and then its total's block (report.rows). A phase run on
-- several hosts gives its total's block only: the Analyzer's lines need
-- the read/write split, which a host's figures do not have. A pass/fail
-- suite's verdict follows (iomoon.report.verdict).
function report.analyzer_string(results)
  local parts = {}
  for _, row in ipairs(all_rows(results)) do
    if not report.is_host(row.result) then parts[#parts + 1] = report.analyzer_block(row.result) end
  end
  return table.concat(parts, "\n") .. verdict.analyzer(results)
end

-- s as a Markdown table cell: control characters shown escaped, and \ | < >
-- backslash-escaped (CommonMark), so a name stays in its cell as text.
local function md_cell(s)
  return (visible(s):gsub("[\\|<>]", "\\%0"))
end

-- one Markdown row: name, IOPS, MiB/s, mean and p99 latency, cpu load,
-- errors, status, then the extra cells
local function md_row(name, r, errs, st, extra)
  return string.format("| %s | %s | %s | %s | %s | %s | %s | %s | %s |", md_cell(name), fig("%.0f", r.iops),
    fig("%.2f", r.mib_per_s), fig("%.3f", r.lat.mean_ns, 1e6), fig("%.3f", r.lat.p99_ns, 1e6),
    fig("%.0f", r.cpu.util_pct), fig("%.0f", opt(r.cpu, "self_pct")), errs, md_cell(st)) .. extra
end

-- the lines above a Markdown table: each phase's report.setup, once
local function md_setups(results, machine)
  local order, names = {}, {}
  for _, r in ipairs(results) do
    local m = machine
    if m == nil then m = report.machine({ r }) end
    local line = report.setup(r, m)
    if not names[line] then names[line], order[#order + 1] = {}, line end
    table.insert(names[line], md_cell(opt(r, "name") or "?"))
  end
  if #order == 0 then return "" end
  if #order == 1 then return md_cell(order[1]) .. "\n\n" end
  local out = {}
  for i, line in ipairs(order) do out[i] = "- " .. table.concat(names[line], ", ") .. ": " .. md_cell(line) end
  return table.concat(out, "\n") .. "\n\n"
end

--- A Markdown table of results: name, IOPS, MiB/s, mean and p99 latency,
-- cpu load, errors, and a status (ok, or report.marks); a phase with
-- streams or hosts is a row per stream and per host and then its total
-- (report.rows); a figure a host does not have is "-". A row's syncs and
-- trims follow it as rows of their own (report.ops), named "ROW: fdatasync
-- after every write", their status "max 91.713 ms, 1233 syncs". When a row
-- replays a trace, three columns say how faithfully (report.replay_cells:
-- on time, lag p99 ms, records replayed; "-" on the other rows). When a
-- row verified with crc32c, a last column, Verified, says what it looked
-- at (report.verify_text; "-" on the other rows). Above the table, how the
-- phases ran (report.setup: engine, O_DIRECT, test area), as the table
-- format says it: one line when every phase ran alike, else a list naming
-- the phases of each. machine: as report.table_writer takes it.
function report.markdown(results, machine)
  local rows = all_rows(results)
  local verify, replays = false, false
  for _, row in ipairs(rows) do
    verify = verify or report.verify_text(row.result) ~= nil
    replays = replays or report.replay_cells(row.result) ~= nil
  end
  local out = { "| Test name | IOPS | MiB/s | Latency ms | p99 ms | cpu load % | iomoon cpu % | Errors | Status |"
    .. (replays and " Replay on time | Replay lag p99 ms | Records replayed |" or "") .. (verify and " Verified |" or ""),
    "|---|---:|---:|---:|---:|---:|---:|---:|---|" .. (replays and "---:|---:|---|" or "") .. (verify and "---|" or "") }
  -- the cells after the status: the replay's (report.replay_cells), what verification looked at
  local function extra(r, vt)
    local s = ""
    if replays then s = " " .. table.concat(report.replay_cells(r) or { "-", "-", "-" }, " | ") .. " |" end
    return s .. (verify and " " .. md_cell(vt or "-") .. " |" or "")
  end
  for _, row in ipairs(rows) do
    local r = row.result
    local m = report.marks(r)
    out[#out + 1] = md_row(r.name, r, whole(r.errors or 0), #m > 0 and table.concat(m, "; ") or "ok",
      extra(r, report.verify_text(r)))
    for _, op in ipairs(report.ops(r)) do
      out[#out + 1] = md_row(tostring(r.name) .. ": " .. op.label, op.result, whole(op.errors), op.text, extra({}))
    end
  end
  local p = pts_of(results)
  return md_setups(results, machine) .. table.concat(out, "\n") .. "\n" .. (p and p.markdown(results) or "")
    .. verdict.markdown(results)
end

--- The JSON document: {"iomoon": VERSION, "phases": [...]}. A phase with
-- streams is its total, holding its streams' results in `streams` (each a
-- whole result with its `name` and `stream` number), as iomoon.run returns it.
-- r for JSON: an open-loop result (or stream) gains rate_met, report.rate_met's
-- verdict, so a reader of the JSON need not apply the rule itself; a
-- replay cut short gains replay_cut, report.replay_cut's line.
local function with_rate_met(r)
  local met = type(r) == "table" and report.rate_met(r)
  local cut = type(r) == "table" and report.replay_cut(r) or nil
  local streams = opt(r, "streams")
  local no_io = type(r) == "table" and rows.no_io_mark(r) or nil
  if met == nil and cut == nil and streams == nil and no_io == nil then return r end
  local c = {}
  for k, v in pairs(r) do c[k] = v end
  if met ~= nil then c.rate_met = met end
  c.no_io = no_io -- the mark of a result that measured no I/O (report.marks)
  c.replay_cut = cut
  if streams then
    c.streams = {}
    for i, st in ipairs(streams) do c.streams[i] = with_rate_met(st) end
  end
  return setmetatable(c, getmetatable(r))
end

--- The command line of this run, as a shell would take it back
-- (`iomoon suite oltp --target /dev/sdb`), for the JSON document; set by
-- the command line (iomoon.cli), nil in a script run otherwise.
report.command = nil

--- The JSON document: {"command": "iomoon ...", "iomoon": VERSION,
-- "machine": {...}, "phases": [...]}. machine: the run's machine (nil:
-- this one's, with the results' targets; false: none, for a saved run that
-- did not say); version: the iomoon that measured (nil: this one);
-- command: the run's command line (nil: report.command; false: none).
function report.json_document(results, machine, version, command)
  local phases = {}
  for i, r in ipairs(results) do phases[i] = with_rate_met(r) end
  if machine == nil then machine = report.machine(results) end
  if command == nil then command = report.command end
  local p = pts_of(results)
  return json.encode({ iomoon = version or iomoon.version, command = command or nil, machine = machine or nil,
    phases = phases, pts = p and p.json(results) or nil, verdict = verdict.json(results) }, "  ") .. "\n"
end

local function table_string(rs, machine)
  local buf = {}
  local sink = { write = function(_, ...) for _, s in ipairs({ ... }) do buf[#buf + 1] = s end end, flush = function() end }
  local tw = report.table_writer(sink, 36, machine)
  tw:fit(rs)
  tw:header(rs[1])
  for _, r in ipairs(rs) do tw:row(r) end
  local p = pts_of(rs)
  return table.concat(buf) .. (p and p.text(rs) or "") .. verdict.text(rs)
end

local renderers = {
  csv = report.csv_string, json = report.json_document, analyzer = report.analyzer_string,
  markdown = report.markdown, table = table_string,
}

--- One self-contained HTML file with charts (lua/iomoon/html.lua).
function report.html(results, machine, version, command)
  if command == nil then command = report.command end
  return html.render(results, machine, version, command or nil)
end
renderers.html = report.html
renderers["fio-json"] = function(rs, _, version) return fio_json.json(rs, version) end
renderers["fio-json+"] = function(rs, _, version) return fio_json.json(rs, version, true) end
renderers["fio-terse"] = function(rs, _, version) return fio_terse.lines(rs, version) end

--- The report formats, in the order the manual lists them.
report.formats = { "table", "csv", "json", "analyzer", "markdown", "html", "fio-json", "fio-json+", "fio-terse" }
local function format_list() return table.concat(report.formats, ", ") end

--- The whole report of `results` in `format` (table, csv, json, analyzer,
-- markdown, html), as a string. machine, version and command: the run's,
-- for the formats that show them (json, html, fio-json; nil: this machine,
-- iomoon and command line; a command of false: none).
function report.render(format, results, machine, version, command)
  local render = renderers[format]
  if not render then
    errors.input("report format '%s' is not known (%s)", visible(format), format_list())
  end
  return render(results, machine, version, command)
end

--- The comparison of two saved runs (iomoon.saved.load's documents), a
-- plain table (iomoon.compare.document says what it holds); opts: how
-- phases are paired ({ pairs = {"A=B", ...}, by = "name" | "position" }).
function report.compare_document(a, b, opts)
  return compare.document(a, b, opts)
end

--- A report file kept complete while results come in, in `format` (json
-- when nil; iomoon.report.file's writer says how): w:add(result),
-- w:close(), w.results.
function report.writer(path, format)
  format = format or "json"
  if not renderers[format] then
    errors.input("report format '%s' is not known (%s)", visible(format), format_list())
  end
  return file.writer(path, format, renderers[format])
end

return report
