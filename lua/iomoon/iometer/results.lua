-- iomoon.iometer.results: an IOMeter results.csv read as a saved run (the
-- document iomoon.saved.load returns), for `iomoon report` and `iomoon
-- compare` (doc/import.md, "IOMeter").
--
-- The sheet, as IOMeter writes it (CPageSetup::SaveResults,
-- ManagerList/Manager/Worker::SaveResults): a header block ('Test
-- Type,Test Description; 'Version; 'Time Stamp), then per test the access
-- specifications it ran and a 'Results block: a header line naming the
-- columns, an ALL row (the whole test), and, as 'Record Results asked,
-- MANAGER, PROCESSOR, WORKER and target rows. Columns are found by their
-- names, so the layouts of 2006 ("MBps"), 2008 ("MBps (Binary)", "MBps
-- (Decimal)") and 1.1 ("MiBps (Binary)") all read. Times are in ms.
--
-- Reading takes time linear in the text (a row with thousands of fields
-- too), a line longer than MAX_LINE (none IOMeter writes comes near) is
-- an input error, and a stop signal ends the reading as interrupted.

local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local util = require "iomoon.util"
local plan = require "iomoon.iometer.plan"

local results = {}

local shown = util.shown
local trim = util.trim

-- The fields of a line, trimmed. A field in double quotes (as a
-- spreadsheet writes a sheet back, RFC 4180) is its text: commas in it
-- are its own and "" is one quote; a quote that is never closed is text.
local function split(l)
  local f, i = {}, 1
  while true do
    local lead = l:match("^%s*", i)
    local q = l:sub(i + #lead, i + #lead) == '"' and i + #lead
    local close = q and l:find('"', q + 1, true)
    while close and l:sub(close + 1, close + 1) == '"' do close = l:find('"', close + 2, true) end
    local after = close and l:match("^%s*", close + 1)
    if close and (close + #after >= #l or l:sub(close + #after + 1, close + #after + 1) == ",") then
      f[#f + 1] = l:sub(q + 1, close - 1):gsub('""', '"')
      i = close + #after + 1
    else
      local comma = l:find(",", i, true) or #l + 1
      f[#f + 1] = trim(l:sub(i, comma - 1))
      i = comma
    end
    if i > #l then return f end
    i = i + 1 -- past the comma
    if i > #l then f[#f + 1] = ""; return f end
  end
end

-- IOMeter 1.1's 21 latency bins (after "Segments Retransmitted/Second"):
-- their lower edges in us; the last, ">= 10 s", is open.
local BIN_EDGES_US = { 0, 50, 100, 200, 500, 1e3, 2e3, 5e3, 10e3, 15e3, 20e3, 30e3, 50e3, 100e3, 200e3, 500e3,
  1e6, 2e6, 4.7e6, 5e6, 10e6 }

-- A row as a map column name -> text; a name column holding commas (more
-- fields than names) gets the extra fields back. row.bins: the latency
-- bins' counts, when the sheet has them.
local function row_of(header, l)
  local f = split(l)
  local extra = #f - #header
  if extra > 0 then -- rebuilt, not table.remove()d field by field: that is quadratic
    local g = { f[1], f[2], table.concat(f, ",", 3, 3 + extra) }
    for k = 4 + extra, #f do g[#g + 1] = f[k] end
    f = g
  end
  local r = { fields = #f, columns = #header }
  for i, h in ipairs(header) do r[h] = f[i] or "" end
  local at = header.bins_at
  if at then
    r.bins = {}
    for k = 1, #BIN_EDGES_US do r.bins[k] = tonumber(f[at + k]) or 0 end
  end
  return r
end

--- Latency percentiles (ns) estimated from the bins: the q-th I/O's place
-- in its bin, linearly between the bin's edges (the open last bin ends at
-- the maximum, max_ns). nil without bins or counts.
function results.percentiles(bins, max_ns)
  if not bins then return nil end
  local total = 0
  for _, c in ipairs(bins) do total = total + c end
  if total <= 0 then return nil end
  local out = {}
  for _, q in ipairs({ 0.5, 0.99, 0.999, 0.9999 }) do
    local want, cum = q * total, 0
    for k, c in ipairs(bins) do
      if c > 0 and cum + c >= want then
        local lo = BIN_EDGES_US[k] * 1e3
        local hi = BIN_EDGES_US[k + 1] and BIN_EDGES_US[k + 1] * 1e3 or math.max(lo, max_ns)
        local v = lo + (hi - lo) * (want - cum) / c
        out[#out + 1] = max_ns > 0 and math.min(v, max_ns) or v
        break
      end
      cum = cum + c
    end
  end
  return out
end

-- The columns that count (errors, I/Os, bytes, workers, disks, queue
-- depth): whole numbers.
local COUNTS = { ["Errors"] = true, ["Read Errors"] = true, ["Write Errors"] = true, ["Read I/Os"] = true,
  ["Write I/Os"] = true, ["Bytes Read"] = true, ["Bytes Written"] = true, ["# Workers"] = true,
  ["# Disks"] = true, ["Queue Depth"] = true }

-- The number in column `name` (the first of several names found), or 0
-- when the sheet has none of them. Every column read is a figure of 0 or
-- more (a count a whole one); a cell that holds anything else is an input
-- error naming its line and column (r.fail).
local function num(r, ...)
  for i = 1, select("#", ...) do
    local name = select(i, ...)
    local text = r[name]
    if text and text ~= "" then
      -- a decimal, as IOMeter writes it (Lua's tonumber also reads 0x10)
      local v = text:find("^[+-]?[%d.]+[eE]?[+-]?%d*$") and tonumber(text)
      local finite = util.finite(v)
      if finite and v >= 0 and (not COUNTS[name] or math.tointeger(v)) then return v end
      if r.fail then
        r.fail(r.line, "column '%s': '%s' is not %s", shown(name), shown(text),
          not finite and "a number (a finite decimal is needed)"
          or COUNTS[name] and "a count (a whole number of 0 or more is needed)"
          or "a figure of 0 or more (no rate, time or size is negative)")
      end
    end
  end
  return 0
end

-- One side (read or write) of a row.
local function side(r, op, seconds)
  local Op = op == "read" and "Read" or "Write"
  local ios = num(r, Op .. " I/Os")
  local mib = num(r, Op .. " MiBps (Binary)", Op .. " MBps (Binary)", Op .. " MBps")
  local mb = num(r, Op .. " MBps (Decimal)")
  if mb == 0 and mib > 0 then mb = mib * 1.048576 end
  return { iops = num(r, Op .. " IOps"), mib_per_s = mib, mb_per_s = mb, errors = num(r, Op .. " Errors"),
    bytes = num(r, "Bytes " .. (op == "read" and "Read" or "Written")), ios = ios,
    lat = { mean_ns = num(r, "Average " .. Op .. " Response Time") * 1e6,
      max_ns = num(r, "Maximum " .. Op .. " Response Time") * 1e6 } }
end

--- A result table from one row: every field a report needs. Latency
-- percentiles are estimated from IOMeter 1.1's latency bins; a sheet
-- without them has none: 0 (meta.iometer.percentiles = false).
function results.result(r, name, cpus)
  local ios = num(r, "Read I/Os") + num(r, "Write I/Os")
  local iops = num(r, "IOps")
  local seconds = iops > 0 and ios / iops or 0
  local mib = num(r, "MiBps (Binary)", "MBps (Binary)", "MBps")
  local mb = num(r, "MBps (Decimal)")
  if mb == 0 and mib > 0 then mb = mib * 1.048576 end
  local cpu_pct = num(r, "% CPU Utilization")
  local qd = math.tointeger(num(r, "Queue Depth")) or 0
  local res = {
    name = name, iops = iops, mib_per_s = mib, mb_per_s = mb, seconds = seconds, ios = ios,
    bytes = num(r, "Bytes Read") + num(r, "Bytes Written"), errors = math.tointeger(num(r, "Errors")) or 0,
    workers = math.tointeger(num(r, "# Workers")) or 0, qd = qd > 0 and qd or 0, engine = "iometer",
    interrupted = false, failed = false, target = r["Target Name"] ~= "" and r["Target Name"] or "All",
    lat = { mean_ns = num(r, "Average Response Time") * 1e6, max_ns = num(r, "Maximum Response Time") * 1e6,
      p50_ns = 0, p99_ns = 0, p999_ns = 0, p9999_ns = 0 },
    -- the sheet's CPU figures are the machine's, as result.cpu's _pct
    cpu = { util_pct = cpu_pct, user_pct = num(r, "% User Time"), sys_pct = num(r, "% Privileged Time"),
      user_s = num(r, "% User Time") / 100 * seconds * cpus,
      sys_s = num(r, "% Privileged Time") / 100 * seconds * cpus },
    read = side(r, "read", seconds), write = side(r, "write", seconds),
  }
  local pct = results.percentiles(r.bins, res.lat.max_ns)
  if pct then res.lat.p50_ns, res.lat.p99_ns, res.lat.p999_ns, res.lat.p9999_ns = table.unpack(pct) end
  return res, pct ~= nil
end

-- The longest line read: IOMeter's longest rows (a target's name and 60
-- figures, the latency bins) are well under 4 KiB.
local MAX_LINE = 1 << 20

-- Every 256th call: a stop signal ends the reading (exit 1, interrupted).
local ticks = 0
local function check_stop()
  ticks = ticks + 1
  if ticks % 256 == 0 and iomoon.interrupted() then errors.run("interrupted while reading the results.csv") end
end

-- The columns a sheet must have: the row's kind, the target's name, the test's
local NEEDED = { "Target Type", "Target Name", "Access Specification Name" }

-- The tests of the sheet: { header info, tests = { {rows...}, ... } }.
local function scan(text, fail)
  local lines = {}
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do
    if #l > MAX_LINE then
      fail(#lines + 1, "a line of %d bytes (a results.csv line is at most %d: IOMeter's are under 4 KiB)", #l, MAX_LINE)
    end
    check_stop()
    lines[#lines + 1] = trim((l:gsub("\r$", "")))
  end
  local info, tests, i = {}, {}, 1
  while i <= #lines do
    check_stop()
    local l = lines[i]
    local low = l:lower()
    if low:find("^'test type,test description") then
      local v = lines[i + 1] or ""
      info.test_type, info.description = v:match("^(%-?%d*),?(.*)$")
      i = i + 2
    elseif low == "'version" then info.version = lines[i + 1]; i = i + 2
    elseif low == "'time stamp" then info.time_stamp = info.time_stamp or lines[i + 1]; i = i + 2
    elseif low == "'results" then
      local header = lines[i + 1] or ""
      if not header:lower():find("^'target type,target name") then
        fail(i + 1, "expected the 'Target Type,Target Name,... column names after 'Results")
      end
      header = split(header:sub(2))
      for _, need in ipairs(NEEDED) do
        local found = false
        for _, h in ipairs(header) do found = found or h == need end
        if not found then fail(i + 1, "no '%s' column in the column names after 'Results", need) end
      end
      for k, h in ipairs(header) do
        if h == "Segments Retransmitted/Second" and #header >= k + #BIN_EDGES_US then header.bins_at = k end
      end
      local rows = {}
      i = i + 2
      while i <= #lines and lines[i]:sub(1, 1) ~= "'" do
        check_stop()
        if lines[i] ~= "" then
          rows[#rows + 1] = row_of(header, lines[i])
          rows[#rows].line, rows[#rows].fail = i, fail
        end
        i = i + 1
      end
      tests[#tests + 1] = rows
    else
      i = i + 1
    end
  end
  return info, tests
end

-- The phase of one test's rows: the ALL row, with the WORKER rows as
-- streams when there are several.
local function phase_of(rows, fail, info)
  local all, workers, targets, managers, cpus = nil, {}, {}, {}, 0
  for _, r in ipairs(rows) do
    local ty = r["Target Type"]:upper()
    if (ty == "ALL" or ty == "WORKER") and r.fields < r.columns then
      fail(r.line, "a row of %d fields where the column names are %d (a row cut short)", r.fields, r.columns)
    end
    if ty == "ALL" then all = all or r
    elseif ty == "MANAGER" then managers[#managers + 1] = r["Target Name"]
    elseif ty == "PROCESSOR" then cpus = cpus + 1
    elseif ty == "WORKER" then workers[#workers + 1] = r; r.targets = {}
    else
      targets[#targets + 1] = r["Target Name"]
      if workers[#workers] then table.insert(workers[#workers].targets, r["Target Name"]) end
    end
  end
  if not all then fail(rows[1] and rows[1].line or 1, "a 'Results block without its ALL row") end
  local name = all["Access Specification Name"]
  if name == "" then
    local seen, names = {}, {}
    for _, w in ipairs(workers) do
      local n = w["Access Specification Name"]
      if n ~= "" and not seen[n] then seen[n] = true; names[#names + 1] = n end
    end
    name = #names > 0 and table.concat(names, " + ") or "(no access spec)"
  end
  local p, estimated = results.result(all, name, math.max(1, cpus))
  if #targets > 0 then p.target = #targets == 1 and targets[1] or targets end
  if #workers > 1 then
    p.streams = {}
    for i, w in ipairs(workers) do
      local s = results.result(w, w["Target Name"], math.max(1, cpus))
      s.stream = i
      if #w.targets > 0 then s.target = #w.targets == 1 and w.targets[1] or w.targets end
      p.streams[i] = s
    end
  end
  p.meta = { spec = name, iometer = { workers = p.workers, disks = math.tointeger(num(all, "# Disks")) or 0,
    qd = p.qd > 0 and p.qd or nil, managers = managers, percentiles = estimated and "estimated from the latency bins"
      or false, version = info.version,
    test_type = info.test_type, description = info.description } }
  return p, managers[1], cpus
end

--- The results.csv at path (its text given) as { file, iomoon, machine,
-- phases }. A sheet without a 'Results block is an input error.
function results.load(path, text)
  local function fail(line, fmt, ...)
    errors.input("%s:%d: " .. fmt .. " (an IOMeter results.csv)", shown(path), line, ...)
  end
  local info, tests = scan(text, fail)
  if #tests == 0 then fail(1, "no 'Results block") end
  local phases, host, cores = {}, nil, 0
  for i, rows in ipairs(tests) do
    local p, mgr, cpus = phase_of(rows, fail, info)
    p.meta.iometer.test = i
    phases[i] = p
    host, cores = host or mgr, math.max(cores, cpus)
  end
  plan.suffix_names(phases, function(p)
    local m = p.meta.iometer
    return { name = p.name, workers = m.workers, disks = m.disks, qd = m.qd, set = function(n) p.name = n end }
  end)
  local machine = { hostname = host, cores = cores > 0 and cores or nil, source = "IOMeter results.csv",
    time_stamp = info.time_stamp }
  return { file = path, iomoon = "IOMeter " .. (info.version or "?"), machine = machine, phases = phases }
end

return results
