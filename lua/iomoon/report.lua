-- iomoon.report: results as the tables, CSV and JSON our users read.
--
-- The table has the columns of the IOMeter result sheets in the field
-- reports (Test name, Latency, Avg iops, Avg MBps, cpu load) with p99 added.
-- IOMeter's "MBps" is binary (2^20 bytes per second), so the column is
-- labelled MiB/s: the same quantity, named for what it is.

local iomoon = require "iomoon"
local json = require "iomoon.json"
local errors = require "iomoon.errors"
local util = require "iomoon.util"

local report = {}

local function ms(ns) return (ns or 0) / 1e6 end

-- v / (scale or 1) in format f, or "-" when v is not a number (a figure a
-- host's row does not have)
local function fig(f, v, scale)
  if type(v) ~= "number" then return "-" end
  return string.format(f, v / (scale or 1))
end

-- n as a whole number ("%d" for an integer or an integral float, else %.0f:
-- a count read back from a file may be a huge float)
local function whole(n)
  local i = math.tointeger(n)
  return i and string.format("%d", i) or string.format("%.0f", n)
end

-- t[k], or nil where reading it raises (a sealed result) or t is not a table
local opt = util.opt

--- s as one line of text may show it (util.shown, the library's one
-- escaper: control characters as \n, \r, \t or \xHH, C1 controls as
-- \u0080 to \u009f, bytes that are not UTF-8 as \xHH, a URL's password left out).
report.visible = util.shown
local visible = util.shown

--- The asked rate of an open-loop result (IOPS), or nil for a closed loop.
-- The core gives the rate asked over the measured time as
-- `rate_asked_iops` (a schedule's segments weighed by their measured
-- time), and the first segment's as `rate_iops`.
function report.asked_rate(r)
  local v = opt(r, "rate_asked_iops")
  if v == nil then v = opt(r, "rate_iops") end
  if v == nil then v = opt(opt(r, "rate"), "iops") end
  if type(v) == "number" and v > 0 then return v end
  return nil
end

--- For an open-loop result: whether the asked rate was met, and the asked
-- rate; nil for a closed loop. Met means the achieved IOPS reached 99 % of
-- the asked rate, or fell short of it by at most one I/O over the measured
-- time (a short phase cannot do a fraction of an I/O), plus, for poisson
-- arrivals, three standard deviations of their count (3 x sqrt(rate x s)).
function report.rate_met(r)
  local asked = report.asked_rate(r)
  if not asked then return nil end
  local iops, seconds = r.iops or 0, r.seconds or 0
  -- poisson arrivals: the count itself varies by sqrt(asked x seconds);
  -- three of those is chance, not a device falling behind
  local slack = opt(r, "rate_arrival") == "poisson" and 3 * math.sqrt(asked * seconds) or 0
  return iops >= 0.99 * asked or (asked - iops) * seconds <= 1 + slack, asked
end

--- For a replay that ended before its trace did (fewer records issued
-- than the replay would issue to its end, result.replay.planned_ios):
-- "replay cut: 192 of 2000 records (missed 1808, cut 0)", the records
-- issued of those planned, then those due and never issued and those
-- not due when the phase ended (doc/replay.md); else nil (no replay, one
-- that ran to its end, or one that loops until the phase ends).
function report.replay_cut(r)
  local rp = opt(r, "replay")
  local ios, planned = opt(rp, "ios"), opt(rp, "planned_ios")
  if type(ios) ~= "number" or type(planned) ~= "number" or planned <= 0 or ios >= planned then return nil end
  local function count(k)
    local v = opt(rp, k)
    return type(v) == "number" and whole(v) or "?"
  end
  return string.format("replay cut: %s of %s records (missed %s, cut %s)", whole(ios), whole(planned),
    count("missed_ios"), count("cut_ios"))
end

--- What is wrong with a result, as a list of short texts (empty when
-- nothing is): interrupted, FAILED, errors with the first message, an
-- unmet open-loop rate, a replay cut short (report.replay_cut).
function report.marks(r)
  local m = {}
  if r.interrupted then m[#m + 1] = "interrupted" end
  if r.failed then m[#m + 1] = "FAILED: " .. visible(opt(r, "error") or "") end
  if (r.errors or 0) > 0 then
    local first = opt(r, "first_error")
    -- a host's row has no first error of its own: the count alone
    local why = (first ~= nil or not report.is_host(r)) and " (" .. visible(opt(first, "message") or "") .. ")" or ""
    m[#m + 1] = string.format("%s error%s%s", whole(r.errors), r.errors == 1 and "" or "s", why)
  end
  local met, asked = report.rate_met(r)
  if met == false then
    m[#m + 1] = string.format("rate not met: %.0f of %.0f IOPS", r.iops or 0, asked)
  end
  m[#m + 1] = report.replay_cut(r)
  return m
end

-- v when it is a number, else nil
local function number(v) return type(v) == "number" and v or nil end

-- bytes as "4 KiB", "8 MiB"; a size not whole in its unit adds its bytes
local function size_text(bytes)
  local s = util.ioping_size(bytes)
  return s:find("%.") and string.format("%s (%s bytes)", s, whole(bytes)) or s
end

--- What a crc32c verification looked at (result.verify) as one line, or
-- nil for a result without one: "verified 2048 units of 4 KiB, 14336
-- never written (blank), written area ends at 8 MiB", with the units
-- never written that held other data (unexpected), those skipped
-- (skip_unwritten), and "no state says what was written" when none did.
function report.verify_text(r)
  local v = opt(r, "verify")
  if type(v) ~= "table" then return nil end
  local function n(k) return number(opt(v, k)) or 0 end
  local function units(k, what) return string.format("%s %s", whole(n(k)), what) end
  local unit = n("unit_bytes")
  local parts = { string.format("verified %s unit%s%s", whole(n("units_checked")), n("units_checked") == 1 and "" or "s",
    unit > 0 and " of " .. size_text(unit) or "") }
  local e = number(opt(v, "written_end_bytes"))
  if n("units_unwritten") > 0 or (e and n("units_skipped") == 0) then
    parts[#parts + 1] = units("units_unwritten", "never written (blank)")
  end
  if n("units_unexpected") > 0 then parts[#parts + 1] = units("units_unexpected", "never written but not blank (unexpected)") end
  if n("units_skipped") > 0 then parts[#parts + 1] = units("units_skipped", "skipped as never written") end
  if not e then
    parts[#parts + 1] = "no state says what was written (every unit must hold a header)"
  elseif e == 0 then
    parts[#parts + 1] = "nothing written with verification"
  else
    parts[#parts + 1] = "written area ends at " .. size_text(e)
  end
  return table.concat(parts, ", ")
end

--- The columns of the table format: header, width, formatter.
-- A figure a host's row may lack is shown as "-" (report.rows).
report.columns = {
  { "Latency ms", 10, function(r) return fig("%.3f", r.lat.mean_ns, 1e6) end },
  { "Avg iops", 10, function(r) return fig("%.0f", r.iops) end },
  { "Avg MiB/s", 10, function(r) return fig("%.2f", r.mib_per_s) end },
  { "cpu load", 8, function(r) return fig("%.0f%%", r.cpu.util_pct) end },
  { "p99 ms", 9, function(r) return fig("%.3f", r.lat.p99_ns, 1e6) end },
}

-- a row's trouble (report.marks), then what its verification looked at
local function status(r)
  local m = report.marks(r)
  m[#m + 1] = report.verify_text(r)
  return #m > 0 and "  " .. table.concat(m, "; ") or ""
end

local HOST = {} -- metatable of a host's row result (report.host_result)

--- Whether r is a host's row result (report.host_result).
function report.is_host(r)
  return getmetatable(r) == HOST
end

--- One rank's figures (an entry of result.hosts) as a row's result, named
-- `name`: its own ios, iops, MB/s, MiB/s (bytes / seconds / 2^20), mean,
-- p50, p99 and max latency, CPU, errors, failed, error and interrupted.
-- It holds nothing else (no read/write split, no target, no p99.9): a
-- figure the host does not have reads as nil, never as the cluster's.
function report.host_result(h, name)
  local bytes, seconds = number(opt(h, "bytes")), number(opt(h, "seconds"))
  local mib
  if bytes and seconds then mib = seconds > 0 and bytes / seconds / 1048576 or 0 end
  local err = opt(h, "error")
  return setmetatable({
    name = name, ios = number(opt(h, "ios")), iops = number(opt(h, "iops")), mb_per_s = number(opt(h, "mb_per_s")),
    mib_per_s = mib, bytes = bytes, seconds = seconds, errors = number(opt(h, "errors")),
    failed = opt(h, "failed") == true, interrupted = opt(h, "interrupted") == true,
    error = err ~= nil and tostring(err) or nil,
    lat = { mean_ns = number(opt(h, "mean_ns")), p50_ns = number(opt(h, "p50_ns")), p99_ns = number(opt(h, "p99_ns")),
      max_ns = number(opt(h, "max_ns")) },
    cpu = { util_pct = number(opt(h, "util_pct")), user_s = number(opt(h, "user_s")), sys_s = number(opt(h, "sys_s")) },
  }, HOST)
end

-- a host entry's rank: its own when a whole number, else its place - 1
local function rank_of(h, i)
  local r = math.tointeger(opt(h, "rank"))
  return r or i - 1
end

--- The rows one result makes in every report, as IOMeter shows each worker
-- and then "All": a phase without streams is one row, the result itself; a
-- phase with streams is one row per stream, named "PHASE / STREAM" (the
-- phase's name, " / ", the stream's), then the phase's total row under the
-- phase's own name. A phase run on several hosts (`hosts`, under MPI, with
-- more than one entry) has, after its stream rows, one row per host named
-- "PHASE / rank N (HOST)", reading that host's own figures
-- (report.host_result), before its total. Each row is {result =, phase =,
-- stream =, host =, rank =}: `result` reads as the stream's result (or the
-- host's, or the phase's), with the row's name; `stream` is the stream's
-- number on a stream row, "All" on the total row (and the host rows) of a
-- phase with streams, nil without streams; `host` is the host's name (shown
-- escaped) on a host row, "All" on the other rows of a phase run on several
-- hosts, nil otherwise; `rank` the host's rank on a host row.
function report.rows(r)
  local streams, hosts = opt(r, "streams"), opt(r, "hosts")
  if type(streams) ~= "table" then streams = {} end
  if type(hosts) ~= "table" or #hosts < 2 then hosts = nil end
  if #streams == 0 and not hosts then return { { result = r } } end
  local rows, all = {}, #streams > 0 and "All" or nil
  local on = hosts and "All" or nil
  for i, s in ipairs(streams) do
    local name = string.format("%s / %s", tostring(r.name), tostring(opt(s, "name")))
    rows[i] = { result = setmetatable({ name = name }, { __index = s }), phase = r.name, stream = opt(s, "stream") or i,
      host = on }
  end
  for i, h in ipairs(hosts or {}) do
    local rank, host = rank_of(h, i), visible(opt(h, "host") or "?")
    local name = string.format("%s / rank %d (%s)", tostring(r.name), rank, host)
    rows[#rows + 1] = { result = report.host_result(h, name), phase = r.name, stream = all, host = host, rank = rank }
  end
  rows[#rows + 1] = { result = r, phase = r.name, stream = all, host = on }
  return rows
end

-- every row of a list of results, in order
local function all_rows(results)
  local rows = {}
  for _, r in ipairs(results) do
    for _, row in ipairs(report.rows(r)) do rows[#rows + 1] = row end
  end
  return rows
end

--- A table writer: w:header(), w:row(result); `name_width` sizes column 1.
-- A name's control characters are shown escaped (report.visible), so a
-- row is always one line. A result with streams writes one row per stream
-- and then its total (report.rows).
function report.table_writer(out, name_width)
  local w = { out = out, name_width = math.max(name_width or 0, 9) }
  function w:header()
    local cells = { string.format("%-" .. self.name_width .. "s", "Test name") }
    for _, c in ipairs(report.columns) do
      cells[#cells + 1] = string.format("%" .. c[2] .. "s", c[1])
    end
    self.out:write(table.concat(cells, "  "), "\n")
  end
  -- the rows of one result (report.rows: its streams', then its own)
  function w:row(result)
    for _, row in ipairs(report.rows(result)) do
      local r = row.result
      local cells = { string.format("%-" .. self.name_width .. "s", visible(r.name)) }
      for _, c in ipairs(report.columns) do
        cells[#cells + 1] = string.format("%" .. c[2] .. "s", c[3](r))
      end
      self.out:write(table.concat(cells, "  "), status(r), "\n")
    end
    self.out:flush()
  end
  return w
end

local function pct_of(r, s)
  -- a process's CPU seconds as a share of the phase's wall time
  return r.seconds > 0 and 100 * s / r.seconds or 0
end

local function target_type(r)
  local t = type(r.target) == "table" and r.target[1] or r.target
  if t == "(none)" then return "NONE" end -- the nominal region of null and sim
  return t and t:match("^/dev/") and "DISK" or "FILE"
end

--- CSV columns in the order of IOMeter's results.csv where they apply
-- (response times in ms, MBps binary and decimal), then iomoon's own.
report.csv_columns = {
  { "Target Type", target_type },
  { "Target Name", function(r) return type(r.target) == "table" and table.concat(r.target, " ") or r.target end },
  { "Access Specification Name", function(r) return r.name end },
  { "# Workers", function(r) return r.workers end },
  { "# Disks", function(r) return type(r.target) == "table" and #r.target or 1 end },
  { "IOps", function(r) return string.format("%.2f", r.iops) end },
  { "Read IOps", function(r) return string.format("%.2f", r.read.iops) end },
  { "Write IOps", function(r) return string.format("%.2f", r.write.iops) end },
  { "MBps (Binary)", function(r) return string.format("%.2f", r.mib_per_s) end },
  { "Read MBps (Binary)", function(r) return string.format("%.2f", r.read.mib_per_s) end },
  { "Write MBps (Binary)", function(r) return string.format("%.2f", r.write.mib_per_s) end },
  { "MBps (Decimal)", function(r) return string.format("%.2f", r.mb_per_s) end },
  { "Read MBps (Decimal)", function(r) return string.format("%.2f", r.read.mb_per_s) end },
  { "Write MBps (Decimal)", function(r) return string.format("%.2f", r.write.mb_per_s) end },
  { "Average Response Time", function(r) return string.format("%.4f", ms(r.lat.mean_ns)) end },
  { "Average Read Response Time", function(r) return string.format("%.4f", ms(r.read.lat.mean_ns)) end },
  { "Average Write Response Time", function(r) return string.format("%.4f", ms(r.write.lat.mean_ns)) end },
  { "Maximum Response Time", function(r) return string.format("%.4f", ms(r.lat.max_ns)) end },
  { "Maximum Read Response Time", function(r) return string.format("%.4f", ms(r.read.lat.max_ns)) end },
  { "Maximum Write Response Time", function(r) return string.format("%.4f", ms(r.write.lat.max_ns)) end },
  { "Errors", function(r) return r.errors end },
  { "Read Errors", function(r) return r.read.errors end },
  { "Write Errors", function(r) return r.write.errors end },
  { "Bytes Read", function(r) return r.read.bytes end },
  { "Bytes Written", function(r) return r.write.bytes end },
  { "Read I/Os", function(r) return r.read.ios end },
  { "Write I/Os", function(r) return r.write.ios end },
  { "% CPU Utilization", function(r) return string.format("%.2f", r.cpu.util_pct) end },
  { "% User Time", function(r) return string.format("%.2f", pct_of(r, r.cpu.user_s)) end },
  { "% Privileged Time", function(r) return string.format("%.2f", pct_of(r, r.cpu.sys_s)) end },
  { "Queue Depth", function(r) return r.qd end },
  -- iomoon's own, units in the names
  { "Engine", function(r) return r.engine end },
  { "Seconds", function(r) return string.format("%.3f", r.seconds) end },
  { "p50 Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.p50_ns)) end },
  { "p99 Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.p99_ns)) end },
  { "p99.9 Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.p999_ns)) end },
  { "p99.99 Response Time (ms)", function(r) return string.format("%.4f", ms(r.lat.p9999_ns)) end },
  { "Interrupted", function(r) return r.interrupted and "yes" or "no" end },
  { "Failed", function(r) return r.failed and "yes" or "no" end },
  -- open loop: the asked rate, and whether at least 99 % of it was achieved
  { "Asked IOps", function(r) local a = report.asked_rate(r); return a and string.format("%.2f", a) or "" end },
  { "Rate Met", function(r) local met = report.rate_met(r); return met == nil and "" or met and "yes" or "no" end },
}

-- A cell a spreadsheet would run as a formula (=, +, -, @, tab or CR
-- first) gets a leading ' (OWASP's advice on CSV injection); numbers such
-- as -1.5 are left alone.
local function csv_safe(v)
  if type(v) ~= "string" or tonumber(v) then return v end
  if v:find("^[=+%-@\t\r]") then return "'" .. v end
  return v
end

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
  { "Average Trim Response Time", op_cell("trim", function(o) return string.format("%.4f", ms(o.lat.mean_ns)) end) },
  { "Maximum Trim Response Time", op_cell("trim", function(o) return string.format("%.4f", ms(o.lat.max_ns)) end) },
  { "Trim Errors", op_cell("trim", function(o) return o.errors end) },
  { "Sync IOps", op_cell("sync", function(o) return string.format("%.2f", o.iops) end) },
  { "Average Sync Response Time", op_cell("sync", function(o) return string.format("%.4f", ms(o.lat.mean_ns)) end) },
  { "p99 Sync Response Time (ms)", op_cell("sync", function(o) return string.format("%.4f", ms(o.lat.p99_ns)) end) },
  { "Maximum Sync Response Time", op_cell("sync", function(o) return string.format("%.4f", ms(o.lat.max_ns)) end) },
  { "Sync Errors", op_cell("sync", function(o) return o.errors end) },
}

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
local function replay_cell(k, f)
  return function(r)
    local v = opt(opt(r, "replay"), k)
    if type(v) ~= "number" then return "" end
    return f and string.format(f, v) or whole(v)
  end
end

--- The columns a CSV report gains, after the host columns, when one of its
-- rows replays a trace (result.replay, doc/replay.md): the records the
-- replay would issue to its end (0: it loops until the phase ends), due,
-- issued, on time, late, missed (due, never issued), cut (not due), the
-- on-time share of those due, and report.replay_cut's line ("" when the
-- replay was not cut); all "" on a row without a replay.
report.csv_replay_columns = {
  { "Replay Records", replay_cell("planned_ios") },
  { "Replay Due", replay_cell("due_ios") },
  { "Replay Issued", replay_cell("ios") },
  { "Replay On Time", replay_cell("on_time_ios") },
  { "Replay Late", replay_cell("late_ios") },
  { "Replay Missed", replay_cell("missed_ios") },
  { "Replay Cut", replay_cell("cut_ios") },
  { "Replay On Time %", replay_cell("on_time_pct", "%.2f") },
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
  ["Average Response Time"] = host_fig("%.4f", "lat.mean_ns", 1e6),
  ["Maximum Response Time"] = host_fig("%.4f", "lat.max_ns", 1e6),
  ["Errors"] = function(r) return r.errors and whole(r.errors) or "" end,
  ["% CPU Utilization"] = host_fig("%.2f", "cpu.util_pct"),
  ["% User Time"] = function(r) return r.seconds and r.cpu.user_s and string.format("%.2f", pct_of(r, r.cpu.user_s)) or "" end,
  ["% Privileged Time"] = function(r) return r.seconds and r.cpu.sys_s and string.format("%.2f", pct_of(r, r.cpu.sys_s)) or "" end,
  ["Seconds"] = host_fig("%.3f", "seconds"),
  ["p50 Response Time (ms)"] = host_fig("%.4f", "lat.p50_ns", 1e6),
  ["p99 Response Time (ms)"] = host_fig("%.4f", "lat.p99_ns", 1e6),
  ["Interrupted"] = function(r) return r.interrupted and "yes" or "no" end,
  ["Failed"] = function(r) return r.failed and "yes" or "no" end,
}

-- a column's cell for result r: a host's row fills only report.csv_host_cells
local function csv_cell(c, r)
  if not report.is_host(r) then return c[2](r) end
  local f = report.csv_host_cells[c[1]]
  return f and f(r) or ""
end

--- The CSV rows (header first) of a list of results, as lists of strings:
-- one row per report.rows row. The header is IOMeter's columns and
-- iomoon's (report.csv_columns), then report.csv_op_columns when a row
-- trims or syncs, then report.csv_stream_columns when a result has
-- streams, then report.csv_host_columns when a result ran on several
-- hosts, then report.csv_replay_columns when a row replays a trace, then
-- report.csv_verify_columns when a row verified with crc32c; without them,
-- exactly as before they existed.
function report.csv_rows(results)
  local list = all_rows(results)
  local streams, hosts, ops, replays, verify = false, false, false, false, false
  for _, lr in ipairs(list) do
    ops = ops or opt(lr.result, "sync") ~= nil or opt(lr.result, "trim") ~= nil
    streams, hosts = streams or lr.stream ~= nil, hosts or lr.host ~= nil
    replays = replays or type(opt(lr.result, "replay")) == "table"
    verify = verify or type(opt(lr.result, "verify")) == "table"
  end
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
  for _, lr in ipairs(list) do
    local row = {}
    add(row, report.csv_columns, lr.result, csv_cell)
    if ops then add(row, report.csv_op_columns, lr.result, csv_cell) end
    if streams then add(row, report.csv_stream_columns, lr) end
    if hosts then add(row, report.csv_host_columns, lr) end
    if replays then add(row, report.csv_replay_columns, lr.result, csv_cell) end
    if verify then add(row, report.csv_verify_columns, lr) end
    rows[#rows + 1] = row
  end
  return rows
end

--- CSV as a string: RFC 4180, every field quoted, CRLF line ends.
function report.csv_string(results)
  return iomoon.csv.format(report.csv_rows(results))
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
-- the read/write split, which a host's figures do not have.
function report.analyzer_string(results)
  local parts = {}
  for _, row in ipairs(all_rows(results)) do
    if not report.is_host(row.result) then parts[#parts + 1] = report.analyzer_block(row.result) end
  end
  return table.concat(parts, "\n")
end

-- s as a Markdown table cell: control characters shown escaped, and \ | < >
-- backslash-escaped (CommonMark), so a name stays in its cell as text.
local function md_cell(s)
  return (visible(s):gsub("[\\|<>]", "\\%0"))
end

--- A Markdown table of results: name, IOPS, MiB/s, mean and p99 latency,
-- cpu load, errors, and a status (ok, or report.marks); a phase with
-- streams or hosts is a row per stream and per host and then its total
-- (report.rows); a figure a host does not have is "-". When a row
-- verified with crc32c, a last column, Verified, says what it looked at
-- (report.verify_text; "-" on the other rows).
function report.markdown(results)
  local rows = all_rows(results)
  local verify = false
  for _, row in ipairs(rows) do verify = verify or report.verify_text(row.result) ~= nil end
  local out = { "| Test name | IOPS | MiB/s | Latency ms | p99 ms | cpu load | Errors | Status |" .. (verify and " Verified |" or ""),
    "|---|---:|---:|---:|---:|---:|---:|---|" .. (verify and "---|" or "") }
  for _, row in ipairs(rows) do
    local r = row.result
    local m = report.marks(r)
    out[#out + 1] = string.format("| %s | %s | %s | %s | %s | %s | %s | %s |", md_cell(r.name), fig("%.0f", r.iops),
      fig("%.2f", r.mib_per_s), fig("%.3f", r.lat.mean_ns, 1e6), fig("%.3f", r.lat.p99_ns, 1e6),
      fig("%.0f%%", r.cpu.util_pct), whole(r.errors or 0), #m > 0 and md_cell(table.concat(m, "; ")) or "ok")
      .. (verify and " " .. md_cell(report.verify_text(r) or "-") .. " |" or "")
  end
  return table.concat(out, "\n") .. "\n"
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
  if met == nil and cut == nil and streams == nil then return r end
  local c = {}
  for k, v in pairs(r) do c[k] = v end
  if met ~= nil then c.rate_met = met end
  c.replay_cut = cut
  if streams then
    c.streams = {}
    for i, st in ipairs(streams) do c.streams[i] = with_rate_met(st) end
  end
  return setmetatable(c, getmetatable(r))
end

--- The paths the results ran on (each once, in order; not the "(none)"
-- of null and sim).
function report.target_paths(results)
  local out, seen = {}, {}
  local function add(t)
    if type(t) == "table" then
      for _, p in ipairs(t) do add(p) end
    elseif type(t) == "string" and t ~= "(none)" and not seen[t] then
      seen[t] = true
      out[#out + 1] = t
    end
  end
  for _, r in ipairs(results) do add(opt(r, "target")) end
  return out
end

--- This machine, and what each target of `results` is (iomoon.machine).
function report.machine(results)
  return iomoon.machine(report.target_paths(results or {}))
end

--- The JSON document: {"iomoon": VERSION, "machine": {...}, "phases":
-- [...]}. machine: the run's machine (nil: this one's, with the results'
-- targets; false: none, for a saved run that did not say); version: the
-- iomoon that measured (nil: this one).
function report.json_document(results, machine, version)
  local phases = {}
  for i, r in ipairs(results) do phases[i] = with_rate_met(r) end
  if machine == nil then machine = report.machine(results) end
  return json.encode({ iomoon = version or iomoon.version, machine = machine or nil, phases = phases }, "  ") .. "\n"
end

local function table_string(rs)
  local buf = {}
  local sink = { write = function(_, ...) for _, s in ipairs({ ... }) do buf[#buf + 1] = s end end, flush = function() end }
  local tw = report.table_writer(sink, 36)
  tw:header()
  for _, r in ipairs(rs) do tw:row(r) end
  return table.concat(buf)
end

local renderers = {
  csv = report.csv_string, json = report.json_document, analyzer = report.analyzer_string,
  markdown = report.markdown, table = table_string,
}

--- One self-contained HTML file with charts (lua/iomoon/html.lua).
function report.html(results, machine)
  return require("iomoon.html").render(results, machine)
end
renderers.html = report.html
renderers["fio-json"] = function(rs) return require("iomoon.fio").json(rs) end

--- The report formats, in the order the manual lists them.
report.formats = { "table", "csv", "json", "analyzer", "markdown", "html", "fio-json" }
local function format_list() return table.concat(report.formats, ", ") end

--- The whole report of `results` in `format` (table, csv, json, analyzer,
-- markdown, html), as a string. machine and version: the run's, for the
-- formats that show them (json, html; nil: this machine and iomoon).
function report.render(format, results, machine, version)
  local render = renderers[format]
  if not render then
    errors.input("report format '%s' is not known (%s)", visible(format), format_list())
  end
  return render(results, machine, version)
end

--- The comparison of two saved runs (iomoon.saved.load's documents), a
-- plain table (iomoon.compare.document says what it holds).
function report.compare_document(a, b)
  return require("iomoon.compare").document(a, b)
end

-- "-", "/dev/stdout" and "/dev/fd/1" mean standard output
local STDOUT = { ["-"] = true, ["/dev/stdout"] = true, ["/dev/fd/1"] = true }

--- A report file kept complete while results come in: w:add(result)
-- rewrites `path` atomically in `format` (csv, json, table, analyzer,
-- markdown), so a long suite stopped at any point leaves a valid file
-- holding every finished phase (SIGINT, SIGTERM, SIGHUP and a closed
-- stdout all end in w:close()). When results come faster than the file can
-- be rewritten (thousands of short phases), a rewrite is skipped while the
-- last one took more than a tenth of the time since it, so only a SIGKILL
-- can find the file some results behind. A path of "-" (or /dev/stdout) writes the
-- report to standard output once, on w:close(). A failed write raises a run
-- error and leaves the previous file; the results stay in w.results.
function report.writer(path, format)
  local w = { path = path, format = format or "json", results = {}, stdout = STDOUT[path] or false }
  if not renderers[w.format] then
    errors.input("report format '%s' is not known (%s)", visible(format), format_list())
  end
  function w:render()
    local ok, s = pcall(renderers[self.format], self.results)
    if not ok then
      errors.run("report %s: the %s report cannot be rendered (%s); the previous file is kept",
        visible(self.path), self.format, visible(s))
    end
    return s
  end
  -- Rewriting the whole file after every result costs time that grows
  -- with the number of results: a rewrite is skipped while the last one
  -- took more than a tenth of the time since (so rewriting is at most about
  -- a tenth of the run); close always writes.
  w.last_end, w.last_cost = 0, 0
  function w:add(r)
    self.results[#self.results + 1] = r
    if self.stdout then return end
    local now = iomoon.now()
    if self.last_cost * 10 > now - self.last_end then return end
    report.write_atomic(self.path, self:render())
    self.last_end = iomoon.now()
    self.last_cost = self.last_end - now
  end
  function w:close()
    if self.stdout then
      io.stdout:write(self:render())
      io.stdout:flush()
    else
      report.write_atomic(self.path, self:render())
    end
  end
  return w
end

--- Write `s` to `path` atomically and durably (iomoon.write_atomic): a
-- temporary file beside it (O_EXCL), every write checked, fsync, rename,
-- fsync of the directory. On any failure the temporary file is removed,
-- `path` keeps its previous contents, and a run error names the path and
-- the reason. Only a regular file (or nothing) at `path` is replaced.
function report.write_atomic(path, s)
  iomoon.write_atomic(path, s)
end

-- "dir/name" -> "dir", "name"
local function split(path)
  local dir, base = path:match("^(.*)/([^/]*)$")
  if not dir then return ".", path end
  return dir == "" and "/" or dir, base
end

-- what a path names: its file (device and inode) if it exists, else the
-- name in its directory
local function identity(path)
  local st = iomoon.stat(path)
  if st then return st.dev .. ":" .. st.ino end
  local dir, base = split(path)
  local ds = iomoon.stat(dir)
  if ds then return ds.dev .. ":" .. ds.ino .. "/" .. base end
  return "?" .. path
end

-- the paths of a target list: strings, {path = ...} tables, target objects, lists of them
local function target_paths(t, out, seen)
  if type(t) == "string" then
    out[#out + 1] = t
  elseif type(t) == "userdata" then
    local ok, p = pcall(function() return t:path() end)
    if ok and type(p) == "string" then out[#out + 1] = p end
  elseif type(t) == "table" and not seen[t] then
    seen[t] = true
    if type(rawget(t, "path")) == "string" then out[#out + 1] = t.path end
    for _, v in ipairs(t) do target_paths(v, out, seen) end
  end
  return out
end

local KINDS = {
  directory = "a directory", block = "a block device", char = "a character device", fifo = "a FIFO",
  socket = "a socket", other = "a special file",
}

--- Check an output path before anything runs. Returns "-" when `path`
-- means standard output ("-", "/dev/stdout", "/dev/fd/1"), else `path`.
-- Raises an input error (naming `what`, default "--output") when `path`
-- is a symbolic link, exists and is not a regular file (a device, FIFO,
-- socket, directory), is the same file as (or the same name as a file to
-- be created for) any of `targets` (a path, a target table or object, or a
-- list of them), or its directory does not exist or is not writable.
-- Nothing is created or opened: a FIFO is never opened.
function report.check_output(path, targets, what)
  what = what or "--output"
  if type(path) ~= "string" or path == "" then
    errors.input("%s: a file name is needed (or - for standard output)", what)
  end
  if STDOUT[path] then return "-" end
  local shown = visible(path)
  local st, err, errno = iomoon.stat(path, false)
  if st then
    if st.kind == "link" then
      errors.input("%s: '%s' is a symbolic link; give the path of the file itself", what, shown)
    elseif st.kind ~= "file" then
      errors.input("%s: '%s' is %s, not a regular file (use - for standard output)", what, shown, KINDS[st.kind])
    end
  elseif path:sub(-1) == "/" then
    errors.input("%s: '%s' is a directory, not a file name", what, shown)
  elseif errno ~= 2 then -- ENOENT: a new file
    errors.input("%s: '%s': %s", what, shown, err)
  end
  local dir = split(path)
  local ds = iomoon.stat(dir)
  if not ds or ds.kind ~= "directory" then
    errors.input("%s: '%s': directory '%s' does not exist", what, shown, visible(dir))
  elseif not ds.writable then
    errors.input("%s: '%s': directory '%s' is not writable", what, shown, visible(dir))
  end
  local id = identity(path)
  for _, t in ipairs(target_paths(targets, {}, {})) do
    if identity(t) == id then
      errors.input("%s: '%s' is a target of this run (%s); the report would replace it", what, shown, visible(t))
    end
  end
  return path
end

return report
