-- iomoon.report.rows: what every report format shows of a result, written
-- once for all of them (the table, CSV, Markdown, Analyzer, HTML and the
-- comparison read it): the rows a result makes (its streams', its
-- hosts', its own), what is wrong with it (rows.marks: interrupted,
-- failed, errors, an unmet rate, a replay cut short), what its
-- verification looked at, the table's columns, and the machine the
-- results ran on. iomoon.report gives each under its documented name
-- (report.rows is rows.of, report.marks is rows.marks, ...).

local iomoon = require "iomoon"
local util = require "iomoon.util"

local rows = {}

local opt, visible, whole = util.opt, util.shown, util.whole

--- v / (scale or 1) in format f, or "-" when v is not a number (a figure a
-- host's row does not have)
function rows.fig(f, v, scale)
  if type(v) ~= "number" then return "-" end
  return string.format(f, v / (scale or 1))
end
local fig = rows.fig

--- v when it is a number, else nil.
function rows.number(v) return type(v) == "number" and v or nil end
local number = rows.number

--- The asked rate of an open-loop result (IOPS), or nil for a closed loop.
-- The core gives the rate asked over the measured time as
-- `rate_asked_iops` (a schedule's segments weighed by their measured
-- time), and the first segment's as `rate_iops`.
function rows.asked_rate(r)
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
function rows.rate_met(r)
  local asked = rows.asked_rate(r)
  if not asked then return nil end
  local iops, seconds = r.iops or 0, r.seconds or 0
  -- poisson arrivals: the count itself varies by sqrt(asked x seconds);
  -- three of those is chance, not a device falling behind
  local slack = opt(r, "rate_arrival") == "poisson" and 3 * math.sqrt(asked * seconds) or 0
  -- a phase (or stream) that ended by its own quota measured until its
  -- last I/O completed: the I/Os due during that one's latency were never
  -- meant to be issued
  local q, qb = rows.number(opt(r, "quota_ios")) or 0, rows.number(opt(r, "quota_bytes")) or 0
  if (q > 0 and (r.ios or 0) >= q) or (qb > 0 and (r.bytes or 0) >= qb) then
    slack = slack + asked * (rows.number(opt(opt(r, "lat"), "max_ns")) or 0) / 1e9
  end
  return iops >= 0.99 * asked or (asked - iops) * seconds <= 1 + slack, asked
end

--- For a replay that ended before its trace did (fewer records issued
-- than the replay would issue to its end, result.replay.planned_ios):
-- "replay cut: 192 of 2000 records (missed 1808, cut 0)", the records
-- issued of those planned, then those due and never issued and those
-- not due when the phase ended (doc/replay.md); else nil (no replay, one
-- that ran to its end, or one that loops until the phase ends).
function rows.replay_cut(r)
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

--- The mark of a result (a phase, a stream, a host) that measured no I/O
-- and did not fail for it, else nil: its latency and rates read 0, which
-- are no measurement (a knee or a bound must never take them).
function rows.no_io_mark(r)
  if type(r) ~= "table" or rawget(r, "failed") or number(opt(r, "ios")) ~= 0 then return nil end
  return "no I/O measured: these figures are not measurements (a longer time, or a rate that brings an I/O)"
end

--- The warning of a result whose figures the host or iomoon set, not the
-- device (result.bottleneck "tool" or "host"), else nil: what held the
-- CPU, by its witnesses (result.cpu), and what to do.
--- Whether the device moved under a tenth of what the result read, and of
-- what it wrote, in each direction it moved any (lua_result.c's rule: another
-- program's writes under a read-only phase are not its); results saved
-- before read_bytes existed: all the device's bytes against all of ours.
function rows.cached(r, dev)
  local n = rows.number
  local rd, wr = n(opt(opt(r, "read"), "bytes")) or 0, n(opt(opt(r, "write"), "bytes")) or 0
  local drd, dwr = n(opt(dev, "read_bytes")), n(opt(dev, "write_bytes"))
  if not drd or not dwr then
    local moved = n(opt(dev, "bytes"))
    return moved ~= nil and moved < 0.1 * (n(opt(r, "bytes")) or 0)
  end
  return (rd == 0 or drd < 0.1 * rd) and (wr == 0 or dwr < 0.1 * wr)
end

function rows.tool_mark(r)
  local b = opt(r, "bottleneck")
  if b ~= "tool" and b ~= "host" then return nil end
  if opt(r, "engine") == "null" then return "engine null: iomoon's own speed, not a device's" end
  local cpu, dev = opt(r, "cpu"), opt(r, "device")
  local busy, wait = rows.number(opt(cpu, "worker_max_pct")), rows.number(opt(cpu, "wait_pct")) or 0
  -- other processes in user mode (a result from before it: all other work)
  local other = rows.number(opt(cpu, "other_user_pct")) or rows.number(opt(cpu, "other_pct"))
  if b == "host" then
    return string.format("host busy: other processes held %s of the CPU, iomoon's workers waited for one %.0f %% "
      .. "of their time: run again on a quiet host", other and string.format("%.0f %%", other) or "?", wait)
  end
  -- the host's memory: no device under the target, or one that moved under a tenth of the bytes
  if (busy or 0) + wait < 85 and (dev == nil or rows.cached(r, dev)) then
    return "the host's memory (the page cache, tmpfs) served these I/Os, not the device: "
      .. "use direct I/O, or a test area larger than the RAM"
  end
  return string.format("iomoon's CPU, not the device, set these figures: its busiest worker was on a CPU %s "
    .. "of its time (iomoon %s of the machine): use more workers or a larger batch",
    busy and string.format("%.0f %%", busy) or "?",
    rows.number(opt(cpu, "self_pct")) and string.format("%.0f %%", cpu.self_pct) or "?")
end

--- How faithful a replay was (result.replay), as one line, or nil for a
-- row that replays nothing: "replay: 1799 of 1799 records, 71.87 % on
-- time, lag p99 18.547 ms (missed 0, cut 0)": the records issued of those
-- planned (of a replay that loops, only those issued), the share of the
-- due records submitted on time (doc/replay.md), the lag's p99, and the
-- records due but never issued and those not due when it ended.
function rows.replay_text(r)
  local rp = opt(r, "replay")
  local ios = number(opt(rp, "ios"))
  if type(rp) ~= "table" or not ios then return nil end
  local function count(k)
    local v = number(opt(rp, k))
    return v and whole(v) or "?"
  end
  local planned = number(opt(rp, "planned_ios")) or 0
  local done = planned > 0 and string.format("%s of %s records", whole(ios), whole(planned))
    or string.format("%s records (looping)", whole(ios))
  return string.format("replay: %s, %s %% on time, lag p99 %s ms (missed %s, cut %s)", done,
    fig("%.2f", opt(rp, "on_time_pct")), fig("%.3f", opt(rp, "lag_p99_ns"), 1e6), count("missed_ios"), count("cut_ios"))
end

--- How faithful a replay was, as three cells (Markdown's and the HTML
-- summary's): "84.38 %" on time, "6.537" ms of lag p99, "1799 of 1799
-- (missed 0, cut 0)"; nil for a row that replays nothing.
function rows.replay_cells(r)
  if not rows.replay_text(r) then return nil end
  local rp = r.replay
  local planned = number(opt(rp, "planned_ios")) or 0
  local function count(k)
    local v = number(opt(rp, k))
    return v and whole(v) or "?"
  end
  return { fig("%.2f %%", opt(rp, "on_time_pct")), fig("%.3f", opt(rp, "lag_p99_ns"), 1e6),
    string.format("%s%s (missed %s, cut %s)", whole(rp.ios), planned > 0 and " of " .. whole(planned) or " (looping)",
      count("missed_ios"), count("cut_ios")) }
end

--- What is wrong with a result, as a list of short texts (empty when
-- nothing is): interrupted, FAILED, errors with the first message, an
-- unmet open-loop rate, a replay cut short (rows.replay_cut), figures
-- the host set (rows.tool_mark).
function rows.marks(r)
  local m = {}
  if r.interrupted then m[#m + 1] = "interrupted" end
  if r.failed then m[#m + 1] = "FAILED: " .. visible(opt(r, "error") or "") end
  m[#m + 1] = rows.no_io_mark(r)
  if (r.errors or 0) > 0 then
    local first = opt(r, "first_error")
    -- a host's row has no first error of its own: the count alone
    local why = (first ~= nil or not rows.is_host(r)) and " (" .. visible(opt(first, "message") or "") .. ")" or ""
    m[#m + 1] = string.format("%s error%s%s", whole(r.errors), r.errors == 1 and "" or "s", why)
  end
  local met, asked = rows.rate_met(r)
  if met == false then
    m[#m + 1] = string.format("rate not met: %.0f of %.0f IOPS", r.iops or 0, asked)
  end
  m[#m + 1] = rows.replay_cut(r)
  m[#m + 1] = rows.tool_mark(r)
  return m
end

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
function rows.verify_text(r)
  local v = opt(r, "verify")
  if type(v) ~= "table" then return nil end
  local function n(k) return number(opt(v, k)) or 0 end
  local function units(k, what) return string.format("%s %s", whole(n(k)), what) end
  local unit = n("unit_bytes")
  local crash = rows.crash_text(r)
  if crash then return rows.crash_verify_text(v, n, units, unit) .. "; " .. crash end
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
  local crash = rows.crash_text(r)
  return table.concat(parts, ", ") .. (crash and "; " .. crash or "")
end

-- What an after_crash pass checked, one message (the classes follow it):
-- "checked 8192 units of 4 KiB against the durability record (each unit's
-- last write issued and made durable)", the blank units never written, and,
-- where the state's map of written units was not saved (its run was killed
-- or lost its power: the map is saved when a run ends), that the record
-- alone said what was written.
function rows.crash_verify_text(v, n, units, unit)
  local parts = { string.format("checked %s unit%s%s against the durability record (each unit's last write issued "
    .. "and made durable)", whole(n("units_checked")), n("units_checked") == 1 and "" or "s",
    unit > 0 and " of " .. size_text(unit) or "") }
  if n("units_unwritten") > 0 then parts[#parts + 1] = units("units_unwritten", "never written (blank)") end
  if n("units_unexpected") > 0 then parts[#parts + 1] = units("units_unexpected", "never written but not blank (unexpected)") end
  local e = number(opt(v, "written_end_bytes"))
  if not e or e == 0 then
    parts[#parts + 1] = "the state's map of written units was not saved (its run did not end): the record alone said what was written"
  else
    parts[#parts + 1] = "written area ends at " .. size_text(e)
  end
  return table.concat(parts, ", ")
end

-- the classes of result.crash, in order, as the report says them
rows.crash_classes = {
  { "durable_ok", "durable" }, { "lost_durable", "lost durable" }, { "unflushed_kept", "unflushed kept" },
  { "unflushed_lost", "unflushed lost" }, { "torn", "torn" }, { "corrupt", "corrupt" },
  { "misdirected", "misdirected" }, { "foreign", "foreign" },
}

--- What an after_crash pass found (result.crash) as one part of the line,
-- or nil for a result without one: "after the crash: 875 durable, 0 lost
-- durable, 4 unflushed kept, 3 unflushed lost, 0 torn, 0 corrupt" (and
-- misdirected, foreign when there are any).
function rows.crash_text(r)
  local c = opt(r, "crash")
  if type(c) ~= "table" then return nil end
  local parts = {}
  for _, k in ipairs(rows.crash_classes) do
    local v = number(opt(c, k[1])) or 0
    if v > 0 or (k[1] ~= "misdirected" and k[1] ~= "foreign") then
      parts[#parts + 1] = string.format("%s %s", whole(v), k[2])
    end
  end
  return "after the crash: " .. table.concat(parts, ", ")
end

--- The columns of the table format: header, width, formatter.
-- A figure a host's row may lack is shown as "-" (rows.of).
rows.columns = {
  { "Latency ms", 10, function(r) return fig("%.3f", r.lat.mean_ns, 1e6) end },
  { "Avg iops", 10, function(r) return fig("%.0f", r.iops) end },
  { "Avg MiB/s", 10, function(r) return fig("%.2f", r.mib_per_s) end },
  { "cpu load", 8, function(r) return fig("%.0f%%", r.cpu.util_pct) end },
  { "p99 ms", 9, function(r) return fig("%.3f", r.lat.p99_ns, 1e6) end },
  -- beside the machine's CPUs (cpu load), iomoon's own share of them
  { "iomoon cpu", 10, function(r) return fig("%.0f%%", opt(opt(r, "cpu"), "self_pct")) end },
}

-- what a row's syncs are: "fdatasync after every write", "fsync after
-- every 64 writes", "fsync" (a trace's own), "fsync and fdatasync" (a
-- phase whose streams sync differently)
local function sync_label(o)
  local call, every = opt(o, "call"), number(opt(o, "every")) or 0
  if call == "mixed" then return "fsync and fdatasync" end
  call = type(call) == "string" and call ~= "none" and visible(call) or "sync"
  if every == 1 then return call .. " after every write" end
  if every > 1 then return string.format("%s after every %s writes", call, whole(every)) end
  return call
end

local OPEN_SYNC = { dsync = "O_DSYNC", sync = "O_SYNC" }

-- the op tables rows.ops shows: sync, trim, and a row's writes when its
-- target was opened O_DSYNC or O_SYNC (each write is then its commit)
local function op_of(r, kind)
  if kind == "commit" then
    local call = opt(opt(r, "sync"), "call")
    return opt(r, kind), "commit: write + " .. (type(call) == "string" and call ~= "mixed" and visible(call) or "sync")
  end
  if kind ~= "write" then return opt(r, kind) end
  local w, how = opt(r, "write"), OPEN_SYNC[opt(r, "open_sync")]
  if how and (number(opt(w, "ios")) or 0) > 0 then return w, "writes with " .. how end
end

--- The operations of a files phase, in the order iomoon names them.
rows.file_ops = { "mkdir", "create", "write", "append", "read", "stat", "dirstat", "open", "rename", "readdir", "delete", "rmdir" }

-- a files phase's operations (result.ops), each a row as rows.ops gives
-- them: IOPS is its operations per second, the text says the rest as
-- mdtest's SUMMARY does (max, min, mean, std dev of its latency) and the
-- count
local function file_op_rows(r, out)
  local ops = opt(r, "ops")
  if type(ops) ~= "table" then return out end
  for _, name in ipairs(rows.file_ops) do
    local o = ops[name]
    if type(o) == "table" then
      local n, errs = number(o.ops) or 0, number(o.errors) or 0
      local text = string.format("max %s min %s mean %s stdev %s ms, %s %s", fig("%.3f", o.lat.max_ns, 1e6),
        fig("%.3f", o.lat.min_ns, 1e6), fig("%.3f", o.lat.mean_ns, 1e6), fig("%.3f", o.lat.stdev_ns, 1e6), whole(n),
        n == 1 and "op" or "ops")
      if errs > 0 then text = text .. string.format(", %s error%s", whole(errs), errs == 1 and "" or "s") end
      out[#out + 1] = { kind = "file", label = name, text = text, errors = errs,
        result = { lat = o.lat, iops = number(o.ops_per_s), cpu = {} } }
    end
  end
  return out
end

--- The syncs and trims of a row, each as a row of its own under it (the
-- table's, Markdown's and the HTML summary's), and its writes when its
-- target was opened with O_DSYNC or O_SYNC (sync = "dsync": every write
-- is durable, as a database's log): a list of {kind = "sync", "trim" or
-- "write", label = "fdatasync after every write", result =, text =}, empty
-- for a row without them. `errors`: their count; `result` reads as a
-- row's result for rows.columns (mean and p99 latency, IOPS, MiB/s but a
-- sync's; no CPU: "-"), `text` says the rest, "max 91.713 ms, 1233 syncs"
-- (and its errors). A row whose every write is followed by its own sync
-- adds its commit latency (result.commit: the write and its sync as one, a
-- database's wait): kind "commit", label "commit: write + fdatasync".
-- A phase's total with streams shows none: its streams' rows show each once.
function rows.ops(r)
  local out = {}
  local streams = opt(r, "streams")
  if type(streams) == "table" and #streams > 0 then return file_op_rows(r, out) end
  for _, kind in ipairs { "write", "sync", "commit", "trim" } do
    local o, label = op_of(r, kind)
    if type(o) == "table" and type(opt(o, "lat")) == "table" then
      local n, errs = number(opt(o, "ios")) or 0, number(opt(o, "errors")) or 0
      local text = string.format("max %s ms, %s %s%s", fig("%.3f", opt(o.lat, "max_ns"), 1e6), whole(n), kind,
        n == 1 and "" or "s")
      if errs > 0 then text = text .. string.format(", %s error%s", whole(errs), errs == 1 and "" or "s") end
      out[#out + 1] = { kind = kind, label = label or kind == "sync" and sync_label(o) or "trims", text = text, errors = errs,
        result = { lat = o.lat, iops = number(opt(o, "iops")), cpu = {},
          mib_per_s = (kind == "write" or kind == "trim") and number(opt(o, "mib_per_s")) or nil } }
    end
  end
  return file_op_rows(r, out) -- a files phase: a row per operation (result.ops)
end

local HOST = {} -- metatable of a host's row result (rows.host_result)

--- Whether r is a host's row result (rows.host_result).
function rows.is_host(r)
  return getmetatable(r) == HOST
end

--- One rank's figures (an entry of result.hosts) as a row's result, named
-- `name`: its own workers, qd and number of targets (`ntargets`; an
-- iomoon before them saved none), ios, iops, MB/s, MiB/s (bytes / seconds
-- / 2^20), mean, p50, p99 and max latency, CPU, errors, failed, error and
-- interrupted. It holds nothing else (no read/write split, no target's
-- path, no p99.9): a figure the host does not have reads as nil, never as
-- the cluster's.
function rows.host_result(h, name)
  local bytes, seconds = number(opt(h, "bytes")), number(opt(h, "seconds"))
  local mib
  if bytes and seconds then mib = seconds > 0 and bytes / seconds / 1048576 or 0 end
  local err = opt(h, "error")
  return setmetatable({
    name = name, workers = number(opt(h, "workers")), qd = number(opt(h, "qd")), ntargets = number(opt(h, "targets")),
    ios = number(opt(h, "ios")), iops = number(opt(h, "iops")), mb_per_s = number(opt(h, "mb_per_s")),
    mib_per_s = mib, bytes = bytes, seconds = seconds, errors = number(opt(h, "errors")),
    failed = opt(h, "failed") == true, interrupted = opt(h, "interrupted") == true,
    error = err ~= nil and tostring(err) or nil,
    lat = { mean_ns = number(opt(h, "mean_ns")), p50_ns = number(opt(h, "p50_ns")), p99_ns = number(opt(h, "p99_ns")),
      max_ns = number(opt(h, "max_ns")) },
    cpu = { util_pct = number(opt(h, "util_pct")), user_s = number(opt(h, "user_s")), sys_s = number(opt(h, "sys_s")),
      user_pct = number(opt(h, "user_pct")), sys_pct = number(opt(h, "sys_pct")), self_pct = number(opt(h, "self_pct")) },
  }, HOST)
end

--- What a phase run on several hosts ran, over all of them: {workers =
-- the sum of the hosts', qd = the hosts' qd when they all ran the same
-- (nil when they differ: a queue depth is per worker), targets = the sum
-- of the hosts' targets}; a field is nil when a host does not say (a file
-- from an iomoon before them), never rank 0's own. nil for a result
-- without several hosts.
function rows.cluster_setup(r)
  local hosts = opt(r, "hosts")
  if type(hosts) ~= "table" or #hosts < 2 then return nil end
  local out = { workers = 0, targets = 0 }
  for i, h in ipairs(hosts) do
    local w, q, t = number(opt(h, "workers")), number(opt(h, "qd")), number(opt(h, "targets"))
    out.workers = out.workers and w and out.workers + w
    out.targets = out.targets and t and out.targets + t
    if i == 1 then out.qd = q elseif out.qd ~= q then out.qd = nil end
  end
  return out
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
-- (rows.host_result), before its total. Each row is {result =, phase =,
-- stream =, host =, rank =}: `result` reads as the stream's result (or the
-- host's, or the phase's), with the row's name; `stream` is the stream's
-- number on a stream row, "All" on the total row (and the host rows) of a
-- phase with streams, nil without streams; `host` is the host's name (shown
-- escaped) on a host row, "All" on the other rows of a phase run on several
-- hosts, nil otherwise; `rank` the host's rank on a host row.
function rows.of(r)
  local streams, hosts = opt(r, "streams"), opt(r, "hosts")
  if type(streams) ~= "table" then streams = {} end
  if type(hosts) ~= "table" or #hosts < 2 then hosts = nil end
  if #streams == 0 and not hosts then return { { result = r } } end
  local out, all = {}, #streams > 0 and "All" or nil
  local on = hosts and "All" or nil
  for i, s in ipairs(streams) do
    local name = string.format("%s / %s", tostring(r.name), tostring(opt(s, "name")))
    out[i] = { result = setmetatable({ name = name }, { __index = s }), phase = r.name, stream = opt(s, "stream") or i,
      host = on }
  end
  for i, h in ipairs(hosts or {}) do
    local rank, host = rank_of(h, i), visible(opt(h, "host") or "?")
    local name = string.format("%s / rank %d (%s)", tostring(r.name), rank, host)
    out[#out + 1] = { result = rows.host_result(h, name), phase = r.name, stream = all, host = host, rank = rank }
  end
  out[#out + 1] = { result = r, phase = r.name, stream = all, host = on }
  return out
end

--- Every row of a list of results, in order (rows.of of each).
function rows.all(results)
  local out = {}
  for _, r in ipairs(results) do
    for _, row in ipairs(rows.of(r)) do out[#out + 1] = row end
  end
  return out
end

--- The paths the results ran on (each once, in order; not the "(none)"
-- of null and sim).
function rows.target_paths(results)
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
function rows.machine(results)
  return iomoon.machine(rows.target_paths(results or {}))
end

--- bytes as people read them: "512 MiB", "23.5 GiB" (util.ioping_size).
function rows.size(bytes)
  return type(bytes) == "number" and util.ioping_size(bytes) or "-"
end

--- What machine.targets says of path (iomoon.machine's entry), or nil.
function rows.target_info(machine, path)
  for _, t in ipairs(type(opt(machine, "targets")) == "table" and machine.targets or {}) do
    if opt(t, "path") == path then return t end
  end
end

--- A target as a phrase: "pg.dat: 256 MiB file on ext4 (/dev/vda)", "/dev/sdb:
-- 100 GiB block device (/dev/sdb, Samsung SSD)"; only the path when the
-- machine does not say (a results file without one, a URL).
function rows.target_text(path, info, area)
  local kind = opt(info, "kind")
  if type(info) ~= "table" or kind == "missing" then return visible(path) end
  local words = {}
  local size = number(opt(info, "size")) and info.size
  if size and area and (area.bytes < size or area.offset > 0) then
    words[#words + 1] = rows.area_text(area) .. " of a " .. rows.size(size)
  elseif size then
    words[#words + 1] = rows.size(size)
  end
  words[#words + 1] = kind == "block" and "block device" or kind == "network" and "network device"
    or type(kind) == "string" and visible(kind) or nil
  local fs, dev, model = opt(info, "filesystem"), opt(info, "device"), opt(info, "model")
  if type(fs) == "string" then words[#words + 1] = "on " .. visible(fs) end
  local where = {}
  if type(dev) == "string" and dev ~= path then where[#where + 1] = visible(dev) end
  if type(model) == "string" then where[#where + 1] = visible(model) end
  if #where > 0 then words[#words + 1] = "(" .. table.concat(where, ", ") .. ")" end
  return visible(path) .. (#words > 0 and ": " .. table.concat(words, " ") or "")
end

--- A part of a target as a phrase: "64 MiB", "64 MiB at 512 MiB".
function rows.area_text(area)
  return rows.size(area.bytes) .. (area.offset > 0 and " at " .. rows.size(area.offset) or "")
end

-- a size as a definition gives it ("64m", 67108864), in bytes, or nil
local function size_bytes(v)
  if type(v) ~= "number" and type(v) ~= "string" then return nil end
  local ok, n = pcall(iomoon.size, v)
  return ok and n or nil
end

--- The test area a result's I/O stayed in, { bytes, offset }: the
-- result's area_bytes, or for a file from an iomoon before it, what its
-- definition asked (a region, or a target size smaller than the file);
-- nil when neither says.
function rows.area(r)
  local bytes = number(opt(r, "area_bytes"))
  if bytes then return { bytes = bytes, offset = number(opt(r, "area_offset_bytes")) or 0 } end
  local def = opt(r, "definition")
  local region = opt(def, "region")
  if type(region) == "table" then
    local b = size_bytes(opt(region, "size"))
    return b and { bytes = b, offset = size_bytes(opt(region, "offset")) or 0 } or nil
  end
  local b = size_bytes(region) or size_bytes(opt(opt(def, "target"), "size"))
  return b and { bytes = b, offset = 0 } or nil
end

local SETUP_TARGETS = 3 -- a setup line names this many targets, then "and N more"

--- How a result ran, in one line (the table's line above its rows): its
-- engine, O_DIRECT or buffered, and its test area, each target with its
-- size, kind, file system and device as `machine` (iomoon.machine's
-- description; nil or false: the path alone) says: "engine io_uring,
-- O_DIRECT, test area pg.dat: 256 MiB file on ext4 (/dev/vda)". The null
-- and sim engines' nowhere is "no target" (and no O_DIRECT: nothing is
-- opened); a phase run on several hosts says so, and that the test area
-- is rank 0's.
function rows.setup(r, machine)
  local parts = { "engine " .. visible(opt(r, "engine") or "?") }
  local direct, paths = opt(r, "direct"), rows.target_paths({ r })
  if direct ~= nil and #paths > 0 then parts[#parts + 1] = direct and "O_DIRECT" or "buffered (page cache)" end
  local hosts = opt(r, "hosts")
  local ranks = type(hosts) == "table" and #hosts > 1 and #hosts or nil
  if ranks then parts[#parts + 1] = string.format("on %d ranks", ranks) end
  if #paths == 0 then
    parts[#parts + 1] = "no target"
  else
    local ts = {}
    local area = rows.area(r)
    for i = 1, math.min(#paths, SETUP_TARGETS) do
      ts[i] = rows.target_text(paths[i], rows.target_info(machine, paths[i]), area)
    end
    if #paths > SETUP_TARGETS then ts[#ts + 1] = string.format("and %d more", #paths - SETUP_TARGETS) end
    parts[#parts + 1] = (ranks and "rank 0's test area " or "test area ") .. table.concat(ts, "; ")
  end
  return table.concat(parts, ", ")
end

return rows
