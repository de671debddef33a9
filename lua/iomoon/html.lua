--- iomoon.html: one self-contained HTML report (doc/reports.md).
--
-- The page holds its styles, its script (lua/iomoon/html/assets.lua: SVG
-- charts of our own, no library) and its data (JSON, every "<" written as
-- \u003c so no "</script>" or "<!--" can end the block early) inline: it
-- opens offline, with no file beside it. The summary table is plain HTML
-- (readable without the script); the charts are drawn by the script.
--
-- It reads results only as the JSON report carries them (report.json_document):
-- plain fields, no method of a result or of its histograms, so a saved
-- JSON's phases render the same as live results.
local iomoon = require "iomoon"
local json = require "iomoon.json"
local rows = require "iomoon.report.rows"
local verdict = require "iomoon.report.verdict"
local util = require "iomoon.util"
local assets = require "iomoon.html.assets"

local html = {}

-- t[k], or nil where reading it raises (a sealed result) or t is not a table
local opt = util.opt

-- v when it is a finite number, else nil
local num = util.finite

local visible = util.shown

--- s as HTML text: control bytes shown escaped (util.shown), & < > " ' as entities.
function html.escape(s)
  return (visible(s):gsub("[&<>\"']", function(c) return string.format("&#%d;", c:byte()) end))
end
local esc = html.escape

-- the data block: compact JSON (json.compact: numbers to 6 digits)
local encoded, raw = json.compact, json.raw

-- ---- what one result shows ----

local PCT_FIELDS = { { 50, "p50_ns" }, { 90, "p90_ns" }, { 99, "p99_ns" }, { 99.9, "p999_ns" }, { 99.99, "p9999_ns" } }

--- The latency percentiles of a result as {p, ns} pairs, ascending: the
-- list `lat.percentiles` when a result carries one ({p, ns} pairs, {p =,
-- ns =} tables, or a map "99.5" -> ns), else the minimum (at 0), p50, p90,
-- p99, p99.9, p99.99, and the maximum placed at the percentile of the last
-- I/O (1 - 1/ios).
function html.percentiles(r)
  local lat, pts = opt(r, "lat"), {}
  local list = opt(lat, "percentiles")
  if type(list) == "table" then
    for k, v in pairs(list) do
      local p, ns
      if type(v) == "table" then p, ns = num(v[1] or v.p), num(v[2] or v.ns) else p, ns = tonumber(k), num(v) end
      if p and ns and p >= 0 and p < 100 then pts[#pts + 1] = { p, ns } end
    end
  else
    local min = num(opt(lat, "min_ns"))
    if min then pts[1] = { 0, min } end
    for _, f in ipairs(PCT_FIELDS) do
      local ns = num(opt(lat, f[2]))
      if ns then pts[#pts + 1] = { f[1], ns } end
    end
    local n, max = num(opt(r, "ios")), num(opt(lat, "max_ns"))
    if #pts > 0 and n and max and n > 1 then
      local p = 100 * (1 - 1 / n)
      if p > pts[#pts][1] then pts[#pts + 1] = { p, max } end
    end
  end
  table.sort(pts, function(a, b) return a[1] < b[1] end)
  if (num(opt(r, "ios")) or 0) == 0 then return {} end -- no I/O: no distribution
  return pts
end

local IV_KEYS = { { "t", "t_s" }, { "len", "len_s" }, { "iops", "iops" }, { "mb", "mb_per_s" }, { "p50", "p50_ns" },
  { "p99", "p99_ns" }, { "max", "max_ns" } }

-- a replay's intervals: the lag of the records submitted in each
local LAG_KEYS = { { "lag99", "lag_p99_ns" }, { "lagmax", "lag_max_ns" } }

-- a result's intervals as columns (t, len, iops, mb, p50, p99, max; and a
-- replay's lag99 and lagmax when an interval has them), or nil
local function intervals(r)
  local ivs = opt(r, "intervals")
  if type(ivs) ~= "table" or #ivs == 0 then return nil end
  local keys = { table.unpack(IV_KEYS) }
  for _, iv in ipairs(ivs) do
    if num(opt(iv, "lag_p99_ns")) then
      for _, k in ipairs(LAG_KEYS) do keys[#keys + 1] = k end
      break
    end
  end
  local cols = {}
  for _, k in ipairs(keys) do cols[k[1]] = {} end
  for i, iv in ipairs(ivs) do
    for _, k in ipairs(keys) do cols[k[1]][i] = num(opt(iv, k[2])) or false end
  end
  for i = 1, #ivs do -- JSON null, not a hole
    for _, k in ipairs(keys) do if cols[k[1]][i] == false then cols[k[1]][i] = raw(nil) end end
  end
  return cols
end

-- the fields of a result that say what ran, for a result without
-- `definition` (those iomoon.result_fields marks `defines`)
local DEF_FIELDS = {}
for _, f in ipairs(iomoon.result_fields.result) do
  if f.defines then DEF_FIELDS[#DEF_FIELDS + 1] = f.name end
end
local STREAM_DEF = { "name", "engine", "target", "workers", "qd", "mix", "dist", "rate_iops", "rate_asked_iops" }

--- A result's workload definition: `definition` when it has one (and
-- true), else its fields that say what ran (and false).
function html.definition(r)
  local d = opt(r, "definition")
  if type(d) == "table" then return d, true end
  local def = {}
  for _, k in ipairs(DEF_FIELDS) do def[k] = opt(r, k) end
  local streams = opt(r, "streams")
  if type(streams) == "table" then
    def.streams = {}
    for i, s in ipairs(streams) do
      local sd = {}
      for _, k in ipairs(STREAM_DEF) do sd[k] = opt(s, k) end
      def.streams[i] = sd
    end
  end
  return def, false
end

-- the syncs and trims of a phase and its streams (rows.ops): {of, what,
-- n, mean, p99, max, errors} each, for the phase's section
local function ops_data(r)
  local out = {}
  local function add(res, of)
    local ok, ops = pcall(rows.ops, res)
    for _, op in ipairs(ok and ops or {}) do
      local lat = op.result.lat
      out[#out + 1] = { of = of, what = op.label, n = num(opt(opt(res, op.kind), "ios")) or 0,
        mean = num(opt(lat, "mean_ns")), p99 = num(opt(lat, "p99_ns")), max = num(opt(lat, "max_ns")), errors = op.errors }
    end
  end
  local streams = opt(r, "streams")
  for j, s in ipairs(type(streams) == "table" and streams or {}) do add(s, visible(opt(s, "name") or ("stream " .. j))) end
  add(r, type(streams) == "table" and #streams > 0 and "all streams" or "")
  return out
end

local function phase_data(r, i, d)
  local lat = opt(r, "lat")
  local def, given = d[1], d[2]
  local p = {
    i = i - 1, name = visible(opt(r, "name")), marks = rows.marks(r), iops = num(opt(r, "iops")) or 0,
    mbps = num(opt(r, "mb_per_s")) or 0, seconds = num(opt(r, "seconds")) or 0, p50 = num(opt(lat, "p50_ns")),
    p99 = num(opt(lat, "p99_ns")), mean = num(opt(lat, "mean_ns")), pct = html.percentiles(r), iv = intervals(r),
    def = raw(def), defsrc = given, ops = ops_data(r), replay = rows.replay_text(r),
  }
  local streams = opt(r, "streams")
  if type(streams) == "table" and #streams > 0 then
    p.streams = {}
    for j, s in ipairs(streams) do
      p.streams[j] = { name = visible(opt(s, "name") or ("stream " .. j)), iv = intervals(s), pct = html.percentiles(s) }
    end
  end
  return p
end

-- ---- sweeps: phases that differ only in load ----

local LOAD_KEYS = { name = true, qd = true, workers = true, rate = true, rate_iops = true, rate_asked_iops = true,
  seed = true, schedule = true, meta = true }

-- what a phase ran less its load (qd, workers, rate) and its name: phases
-- with the same key are points of one curve
local function sweep_key(r, d, given)
  local k = {}
  for f, v in pairs(d) do if not LOAD_KEYS[f] then k[f] = v end end
  if given then return encoded(k, true) end
  k.streams = nil
  k.nstreams = type(opt(r, "streams")) == "table" and #r.streams or 0
  return encoded(k, true)
end

-- a phase's load: the rate asked, else qd x workers
local function load(r)
  return rows.asked_rate(r) or (num(opt(r, "qd")) or 1) * (num(opt(r, "workers")) or 1)
end

-- the common start of the names, without trailing separators
local function common_title(results, members)
  local first = visible(opt(results[members[1]], "name"))
  local n = #first
  for _, i in ipairs(members) do
    local s = visible(opt(results[i], "name"))
    while n > 0 and s:sub(1, n) ~= first:sub(1, n) do n = n - 1 end
  end
  local t = first:sub(1, n):gsub("[%s@:;,%-=]+$", ""):gsub("[Qq][Dd]$", ""):gsub("%s+$", "")
  return t ~= "" and t or "phases " .. table.concat({ members[1], members[#members] }, " to ")
end

--- The knee of a sweep (doc/reports.md): `loads` ascending and above 0,
-- `iops` the IOPS measured at each. On the envelope E (the most IOPS any
-- load up to this one gave: the running maximum, so noise cannot make it
-- zig-zag), drawn against the logarithm of the load with both scaled to
-- 0..1 from the first point to the last, the knee is the point farthest
-- above the straight line between them (Kneedle: Satopaa et al., 2011),
-- the first of equals. Returns the knee's index and why: "flat" (the first
-- point, because no load gave even FLAT_PCT % more IOPS than the first),
-- "bend"; or nil when no point lies above the line (the IOPS still rise
-- with the load at its largest: no knee within the sweep).
local FLAT_PCT = 10
function html.knee(loads, iops)
  local n = #loads
  if n < 2 or #iops ~= n then return nil end
  local env, best = {}, -math.huge
  for i = 1, n do
    best = math.max(best, num(iops[i]) or 0)
    env[i] = best
  end
  if env[n] - env[1] < FLAT_PCT / 100 * env[n] then return 1, "flat" end
  local l1, ln = loads[1], loads[n]
  if not (l1 > 0 and ln > l1) then return nil end
  local knee, far = nil, 1e-9 -- a point on the line (to rounding) is no bend
  for i = 2, n - 1 do
    local x = math.log(loads[i] / l1) / math.log(ln / l1)
    local d = (env[i] - env[1]) / (env[n] - env[1]) - x
    if d > far then knee, far = i, d end
  end
  return knee, knee and "bend" or nil
end

-- a sweep point's load as its label says it: the rate asked ("2000/s"),
-- else "QD q" or, with several workers, "QD qxw"
local function load_label(r)
  local rate = rows.asked_rate(r)
  if rate then return string.format("%.6g/s", rate) end
  local qd, w = num(opt(r, "qd")) or 1, num(opt(r, "workers")) or 1
  if w ~= 1 then return string.format("QD %.6gx%.6g", qd, w) end
  return string.format("QD %.6g", qd)
end

-- what the page says of a group's knee (html.knee's answer k, why)
local function knee_note(results, m, labels, k, why)
  if why == "flat" then
    return string.format("knee: %s (%s): no higher load gave %d %% more IOPS than it (%.6g IOPS)",
      visible(opt(results[m[1]], "name")), labels[1], FLAT_PCT, results[m[1]].iops)
  elseif k then
    return string.format("knee: %s (%s), %.6g IOPS: where the most IOPS reached so far bends away from rising "
      .. "with the load", visible(opt(results[m[k]], "name")), labels[k], results[m[k]].iops)
  end
  return string.format("no knee: the IOPS still rise with the load at %s, the largest here (try higher loads)",
    labels[#m])
end

--- The curves of a report: groups of at least two phases that ran the
-- same workload at different loads (queue depth x workers, or the rate
-- asked: a sweep or find_max's probes), each {title, members (0-based
-- indexes, by load), labels (each member's load: "QD 4", "2000/s"), knee
-- (0-based index, or nil: html.knee), note (what the page says of the
-- knee)}. Failed phases are left out.
-- defs: each result's {definition, given} (html.definition), when known.
function html.groups(results, defs)
  local by, order, loads = {}, {}, {}
  for i, r in ipairs(results) do
    if not opt(r, "failed") and (num(opt(r, "iops")) or 0) > 0 then
      local d = defs and defs[i] or { html.definition(r) }
      local k = sweep_key(r, d[1], d[2])
      if not by[k] then by[k] = {}; order[#order + 1] = k end
      table.insert(by[k], i)
      loads[i] = load(r)
    end
  end
  local groups = {}
  for _, k in ipairs(order) do
    local m = by[k]
    local distinct = {}
    for _, i in ipairs(m) do distinct[loads[i]] = true end
    if #m >= 2 and next(distinct, next(distinct)) then
      table.sort(m, function(a, b) return loads[a] < loads[b] or loads[a] == loads[b] and a < b end)
      local g = { title = common_title(results, m), members = {}, labels = {} }
      local ls, ios = {}, {}
      for j, i in ipairs(m) do
        g.members[j], g.labels[j], ls[j], ios[j] = i - 1, load_label(results[i]), loads[i], results[i].iops
      end
      local kn, why = html.knee(ls, ios)
      g.knee = kn and m[kn] - 1 or nil
      g.note = knee_note(results, m, g.labels, kn, why)
      groups[#groups + 1] = g
    end
  end
  return groups
end

-- ---- the machine ----

local function read_file(path)
  local ok, s = pcall(function()
    local f = io.open(path, "rb")
    if not f then return nil end
    local t = f:read("a")
    f:close()
    return t
  end)
  return ok and s or nil
end

local function command(cmd)
  local ok, s = pcall(function()
    local p = io.popen(cmd .. " 2>/dev/null")
    if not p then return nil end
    local t = p:read("a")
    p:close()
    return t
  end)
  return ok and s and s:gsub("%s+$", "") or nil
end

--- This machine as the report can read it itself: CPU model, cores,
-- memory, kernel (when iomoon.machine does not exist).
function html.local_machine()
  local m = {}
  local cpu = read_file("/proc/cpuinfo") or ""
  m.cpu = cpu:match("model name%s*:%s*([^\n]+)")
  local n = 0
  for _ in cpu:gmatch("\nprocessor%s*:") do n = n + 1 end
  if cpu:match("^processor%s*:") then n = n + 1 end
  m.cores = n > 0 and n or nil
  local kb = (read_file("/proc/meminfo") or ""):match("MemTotal:%s*(%d+)")
  m.memory_gib = kb and math.floor(tonumber(kb) / 1048576 * 10 + 0.5) / 10 or nil
  m.kernel = command("uname -sr")
  m.host = command("uname -n")
  return m
end

-- the machine to show: the one given, else rows.machine(results) (this
-- machine and the results' targets), else what /proc and uname say
local function machine_of(given, results)
  if type(given) == "table" then return given end
  local ok, m = pcall(rows.machine, results)
  if ok and type(m) == "table" then return m end
  return html.local_machine()
end

-- a key as a label: "time_stamp" -> "Time stamp"
local function label(k)
  local t = tostring(k):gsub("_", " ")
  return (t:gsub("^%l", string.upper))
end

-- a nested table of plain values as key/value rows, keys as labels
local function kv_rows(t, prefix, out, depth)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local v, key = t[k], prefix .. tostring(k)
    if type(v) == "table" and depth < 4 then
      kv_rows(v, key .. ".", out, depth + 1)
    elseif type(v) ~= "table" then
      out[#out + 1] = string.format("<tr><td>%s</td><td>%s</td></tr>", esc(label(key)), esc(tostring(v)))
    end
  end
  return out
end

-- what machine m says, in the order people read it, as {label, text}
-- rows: host, OS, kernel, CPU, memory, iomoon, then its other fields
local MACHINE_SHOWN = { hostname = true, host = true, os = true, kernel = true, arch = true, cpu_model = true,
  cpu = true, cores = true, memory_bytes = true, memory_gib = true, iomoon = true, targets = true }

local function machine_rows(m)
  local out = {}
  local function add(l, v) if v ~= nil and v ~= "" then out[#out + 1] = { l, tostring(v) } end end
  add("Host", opt(m, "hostname") or opt(m, "host"))
  add("OS", opt(m, "os"))
  local kernel, arch = opt(m, "kernel"), opt(m, "arch")
  add("Kernel", kernel and (arch and string.format("%s (%s)", kernel, arch) or kernel) or arch)
  local cpu, cores = opt(m, "cpu_model") or opt(m, "cpu"), num(opt(m, "cores"))
  local n = cores and string.format("%.0f core%s", cores, cores == 1 and "" or "s")
  add("CPU", cpu and (n and cpu .. ", " .. n or cpu) or n)
  local mem, gib = num(opt(m, "memory_bytes")), num(opt(m, "memory_gib"))
  add("Memory", mem and rows.size(mem) or gib and string.format("%.1f GiB", gib))
  add("iomoon", opt(m, "iomoon"))
  return out
end

-- how many phases ran each way: "io_uring (all 3 phases)", "io_uring (2
-- phases), psync (1 phase)"; nil when no phase says
local function tally(results, what)
  local n, order, total = {}, {}, 0
  for _, r in ipairs(results) do
    local v = what(r)
    if v then
      if not n[v] then order[#order + 1] = v; n[v] = 0 end
      n[v], total = n[v] + 1, total + 1
    end
  end
  if total == 0 then return nil end
  local function phases(k) return string.format("%d phase%s", k, k == 1 and "" or "s") end
  if #order == 1 then return string.format("%s (%s%s)", order[1], total > 1 and "all " or "", phases(total)) end
  local parts = {}
  for _, v in ipairs(order) do parts[#parts + 1] = string.format("%s (%s)", v, phases(n[v])) end
  return table.concat(parts, ", ")
end

local TARGET_COLS = { "Target", "Kind", "Test area", "File system", "Device", "Model", "Media" }

-- the targets machine m describes, a row each: path, kind, size (the test
-- area), file system, device (and device-mapper name), model, rotational
-- and the I/O scheduler
local function target_table(m, results, out)
  local ts = opt(m, "targets")
  if type(ts) ~= "table" or #ts == 0 then
    local any = #rows.target_paths(results) > 0
    out[#out + 1] = string.format('<p class="note" id="targets">%s</p>\n', any and
      "What the targets are is not in the machine's description." or
      "No target: the phases ran on engines that do no I/O (null, sim).")
    return
  end
  out[#out + 1] = '<table id="targets"><thead><tr>'
  for _, c in ipairs(TARGET_COLS) do out[#out + 1] = '<th class="n">' .. c .. "</th>" end
  out[#out + 1] = "</tr></thead><tbody>\n"
  for _, t in ipairs(ts) do
    local rot, dev, dm = opt(t, "rotational"), opt(t, "device"), opt(t, "dm_name")
    local media = {}
    if rot ~= nil then media[#media + 1] = rot == true and "rotational" or "non-rotational" end
    if opt(t, "scheduler") then media[#media + 1] = "scheduler " .. tostring(t.scheduler) end
    media = table.concat(media, ", ")
    local cells = { opt(t, "path"), opt(t, "kind"), num(opt(t, "size")) and rows.size(t.size), opt(t, "filesystem"),
      dev and (dm and string.format("%s (%s)", dev, dm) or dev) or dm, opt(t, "model"),
      media ~= "" and media or nil }
    out[#out + 1] = "<tr>"
    for i = 1, #TARGET_COLS do out[#out + 1] = '<td class="n">' .. esc(cells[i] ~= nil and tostring(cells[i]) or "-") .. "</td>" end
    out[#out + 1] = "</tr>\n"
  end
  out[#out + 1] = "</tbody></table>\n"
end

--- The machine section's HTML: what machine m says (host, OS, kernel, CPU
-- and cores, memory in GiB, the iomoon that described it, then its other
-- fields, labelled), how the results ran (engine, O_DIRECT or buffered,
-- per phase), and a table of the targets (path, kind, test area, file
-- system, device, model, rotational).
function html.machine(m, results)
  local out = { '<table class="kv" id="machine">' }
  local shown = machine_rows(m)
  shown[#shown + 1] = { "Engine", tally(results, function(r) local e = opt(r, "engine"); return e and tostring(e) end) }
  shown[#shown + 1] = { "I/O", tally(results, function(r)
    local d = opt(r, "direct")
    if d == nil or #rows.target_paths({ r }) == 0 then return nil end
    return d and "O_DIRECT" or "buffered (page cache)"
  end) }
  -- a phase whose I/O stayed in a part of its target says which part
  shown[#shown + 1] = { "Test area", tally(results, function(r)
    local paths, area = rows.target_paths({ r }), rows.area(r)
    local info = paths[1] and rows.target_info(m, paths[1])
    if not area or type(opt(info, "size")) ~= "number" then return nil end
    if area.bytes >= info.size and area.offset == 0 then return nil end
    return rows.target_text(paths[1], info, area)
  end) }
  for _, row in ipairs(shown) do
    if row[2] then out[#out + 1] = string.format("<tr><td>%s</td><td>%s</td></tr>", esc(row[1]), esc(row[2])) end
  end
  local rest = {}
  for k, v in pairs(type(m) == "table" and m or {}) do if not MACHINE_SHOWN[k] then rest[k] = v end end
  out[#out + 1] = table.concat(kv_rows(rest, "", {}, 0))
  out[#out + 1] = "</table>\n"
  target_table(m, results, out)
  return table.concat(out)
end

-- ---- the summary table ----

local function cell(f, r)
  local ok, s = pcall(f, r)
  return ok and esc(s) or "&ndash;"
end

local function row_class(r, stream)
  local cls = {}
  if stream and stream ~= "All" then cls[#cls + 1] = "stream" end
  if rows.is_host(r) then cls[#cls + 1] = "stream host" end
  if opt(r, "failed") or (num(opt(r, "errors")) or 0) > 0 then cls[#cls + 1] = "bad"
  elseif opt(r, "interrupted") then cls[#cls + 1] = "intr"
  elseif rows.rate_met(r) == false then cls[#cls + 1] = "rate" end
  return #cls > 0 and string.format(' class="%s"', table.concat(cls, " ")) or ""
end

-- what a row's crc32c verification looked at (rows.verify_text), or nil
local function verify_text(r)
  local ok, s = pcall(rows.verify_text, r)
  return ok and s or nil
end

-- how faithful a row's replay was (rows.replay_cells), or nil
local function replay_cells(r)
  local ok, c = pcall(rows.replay_cells, r)
  return ok and c or nil
end

-- the cells after a row's status: its replay's when some row replays,
-- what its verification looked at when some row verified ("-" where a row
-- has none); has = {replays =, verify =}
local function extra_cells(r, has)
  local s = ""
  if has.replays then
    for j, c in ipairs(replay_cells(r) or { "-", "-", "-" }) do
      s = s .. string.format('<td class="%s">%s</td>', j == 3 and "n replay" or "replay", esc(c))
    end
  end
  if has.verify then s = s .. '<td class="n verify">' .. esc(verify_text(r) or "-") .. "</td>" end
  return s
end

-- a row's syncs and trims (rows.ops), each a row of the summary under it:
-- "ROW: fdatasync after every write", its figures, "max 91.713 ms, 1233 syncs"
local function op_rows(r, i, has, out)
  local ok, ops = pcall(rows.ops, r)
  for _, op in ipairs(ok and ops or {}) do
    out[#out + 1] = string.format('<tr class="op %s"><td class="n"><a href="#phase-%d">%s: %s</a></td>', op.kind, i,
      esc(opt(r, "name")), esc(op.label))
    for _, c in ipairs(rows.columns) do out[#out + 1] = "<td>" .. cell(c[3], op.result) .. "</td>" end
    out[#out + 1] = '<td class="st">' .. esc(op.text) .. "</td>" .. extra_cells({}, has) .. "</tr>\n"
  end
end

-- The summary: a row per rows.of row, each followed by its syncs' and
-- trims' rows, the table report's columns and a status; three columns of
-- replay fidelity when some row replays (on time, lag p99, records
-- replayed), a Verified column when some row verified with crc32c.
local function summary(results, out)
  local has = { verify = false, replays = false }
  for _, res in ipairs(results) do
    for _, row in ipairs(rows.of(res)) do
      has.verify = has.verify or verify_text(row.result) ~= nil
      has.replays = has.replays or replay_cells(row.result) ~= nil
    end
  end
  out[#out + 1] = '<div class="wrap"><table id="summary"><thead><tr><th class="n">Test name</th>'
  for _, c in ipairs(rows.columns) do out[#out + 1] = "<th>" .. esc(c[1]) .. "</th>" end
  out[#out + 1] = '<th class="n">Status</th>' .. (has.replays and
    '<th>Replay on time</th><th>Replay lag p99 ms</th><th class="n">Records replayed</th>' or "")
    .. (has.verify and '<th class="n">Verified</th>' or "") .. "</tr></thead><tbody>\n"
  for i, res in ipairs(results) do
    for _, row in ipairs(rows.of(res)) do
      local r = row.result
      local ok, m = pcall(rows.marks, r)
      m = ok and m or { "unreadable: " .. tostring(m) }
      out[#out + 1] = string.format('<tr%s><td class="n"><a href="#phase-%d">%s</a></td>', row_class(r, row.stream), i,
        esc(opt(r, "name")))
      for _, c in ipairs(rows.columns) do out[#out + 1] = "<td>" .. cell(c[3], r) .. "</td>" end
      out[#out + 1] = string.format('<td class="st%s">%s</td>', #m > 0 and " mark" or "",
        #m > 0 and esc(table.concat(m, "; ")) or "ok")
      out[#out + 1] = extra_cells(r, has) .. "</tr>\n"
      op_rows(r, i, has, out)
    end
  end
  out[#out + 1] = "</tbody></table></div>\n"
end

-- ns as text: ns below 10 us, else us, ms or s
local function duration(ns)
  if ns < 1e4 then return string.format("%.0f ns", ns) end
  if ns < 1e7 then return string.format("%.1f &micro;s", ns / 1e3) end
  if ns < 1e10 then return string.format("%.1f ms", ns / 1e6) end
  return string.format("%.1f s", ns / 1e9)
end

--- What the page says of a run on several hosts (MPI), as HTML, or "" when
-- no phase has `cluster`: the number of ranks (the range when phases
-- differ) and the largest skew between the ranks' measurement starts, and
-- the phases a rank stopped.
function html.cluster_note(results)
  local lo, hi, skew, stopped = nil, nil, nil, {}
  for _, r in ipairs(results) do
    local c = opt(r, "cluster")
    local n = num(opt(c, "ranks"))
    if n then lo, hi = math.min(lo or n, n), math.max(hi or n, n) end
    local sk = num(opt(c, "start_skew_ns"))
    if sk then skew = math.max(skew or sk, sk) end
    local by = num(opt(c, "stopped_by"))
    if by then stopped[#stopped + 1] = string.format("%s by rank %.0f", esc(opt(r, "name")), by) end
  end
  if not lo then return "" end
  local s = string.format('<p id="cluster">Run under MPI on <b>%s rank%s</b>', lo == hi and string.format("%.0f", lo)
    or string.format("%.0f to %.0f", lo, hi), hi == 1 and "" or "s")
  if skew then s = s .. string.format("; start skew between the ranks' measurement starts: %s%s", duration(skew),
    #results > 1 and " (the largest of the phases)" or "") end
  if #stopped > 0 then s = s .. '; <span class="mark">stopped: ' .. table.concat(stopped, ", ") .. "</span>" end
  return s .. ". Each phase shows a row per host (\"PHASE / rank N (HOST)\") above its total.</p>\n"
end

local function counts(results)
  local bad, intr, rate = 0, 0, 0
  for _, r in ipairs(results) do
    if opt(r, "failed") or (num(opt(r, "errors")) or 0) > 0 then bad = bad + 1 end
    if opt(r, "interrupted") then intr = intr + 1 end
    if rows.rate_met(r) == false then rate = rate + 1 end
  end
  local s = string.format("%d phase%s", #results, #results == 1 and "" or "s")
  if bad > 0 then s = s .. string.format(', <span class="mark">%d with errors</span>', bad) end
  if intr > 0 then s = s .. string.format(', <span class="mark">%d interrupted</span>', intr) end
  if rate > 0 then s = s .. string.format(', <span class="mark">%d below the rate asked</span>', rate) end
  return s
end

-- "2026-12-01T19:05:32.123Z" as "2026-12-01 19:05:32"; nil for what is not such a time
local function wall(iso)
  local d, t = tostring(iso):match("^(%d%d%d%d%-%d%d%-%d%d)T(%d%d:%d%d:%d%d)")
  return d and d .. " " .. t or nil
end

--- When the results were measured, as the page's first line says it:
-- "from 2026-12-01 19:05:32 to 19:07:10 UTC" (the first phase's start to
-- the last one's end, the date again when it changed), or "at a time the
-- results do not say" (an older iomoon's file): never the time the page is
-- written.
function html.measured(results)
  local first, last
  for _, r in ipairs(results) do
    local s, e = wall(opt(r, "started")), wall(opt(r, "ended"))
    if s and (not first or s < first) then first = s end
    if e and (not last or e > last) then last = e end
  end
  if not first or not last then return "at a time the results do not say" end
  if last:sub(1, 10) == first:sub(1, 10) then last = last:sub(12) end
  return string.format("from %s to %s UTC", first, last)
end

--- The whole report of `results` as one HTML document (a string).
-- machine: the description of the machine that ran them (a saved JSON's;
-- nil: this machine's, from iomoon.machine when there is one, else what
-- /proc and uname say); version: the iomoon that measured them (nil: this
-- one); command: the command line that ran them (nil: not shown).
function html.render(results, machine, version, command)
  results = results or {}
  version = version or iomoon.version
  local defs = {}
  for i, r in ipairs(results) do defs[i] = { html.definition(r) } end
  local data = { version = version, phases = {}, groups = html.groups(results, defs) }
  for i, r in ipairs(results) do data.phases[i] = phase_data(r, i, defs[i]) end
  local blob = encoded(data):gsub("<", "\\u003c")
  local out = { '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n',
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
    "<title>iomoon report</title>\n<style>", assets.css, "</style></head><body>\n",
    string.format('<h1>iomoon report</h1>\n<p id="measured">measured by iomoon %s%s %s: %s</p>\n', esc(version),
      version ~= iomoon.version and " (shown by iomoon " .. esc(iomoon.version) .. ")" or "",
      html.measured(results), counts(results)),
    type(command) == "string" and '<p class="note" id="command">command: <code>' .. esc(command) .. "</code></p>\n" or "",
    html.cluster_note(results), '<div id="status" data-charts="0" data-errors="0"></div>\n',
    verdict.html(results, esc) }
  -- a SNIA PTS run's pages (iomoon.html.pts, loaded only for one) come
  -- first: its summary table holds hundreds of cells
  for _, r in ipairs(results) do
    if type(opt(opt(r, "meta"), "pts")) == "table" then
      local pages = require("iomoon.html.pts") -- lazy load: only a PTS run has these pages
      out[#out + 1] = pages.render(results, machine_of(machine, results))
      break
    end
  end
  out[#out + 1] = "<h2>Summary</h2>\n"
  summary(results, out)
  out[#out + 1] = "<h2>The machine</h2>\n" .. html.machine(machine_of(machine, results), results)
  out[#out + 1] = "<h2>Latency distribution</h2>\n<div id=\"dist\"></div>\n"
  out[#out + 1] = '<h2>IOPS against latency</h2>\n<div id="curves"></div>\n'
  out[#out + 1] = '<h2>Phases</h2>\n<p class="note">The first 10 are drawn; open another to draw it.</p><div id="phases"></div>\n'
  out[#out + 1] = '<script type="application/json" id="data">' .. blob .. "</script>\n"
  out[#out + 1] = "<script>" .. assets.js .. "</script>\n</body></html>\n"
  return table.concat(out)
end

return html
