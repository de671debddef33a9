-- iomoon.compare: two runs side by side (`iomoon compare A.json B.json`,
-- doc/reports.md). Phases are paired by name, by position or as asked
-- (iomoon.compare.pairs); per pair, each metric's value in A and in B, the
-- ratio B/A, whether the difference is larger than the runs' own spread
-- from interval to interval, and if so whether B is better or worse; and
-- what else differed between the runs (iomoon.compare.warn).

local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local json = require "iomoon.json"
local util = require "iomoon.util"
local report_rows = require "iomoon.report.rows"
local html = require "iomoon.html"
local pairs_of = require "iomoon.compare.pairs"
local warn = require "iomoon.compare.warn"

local compare = {}

local visible = util.shown

--- The metrics compared, in the order shown: key, label, unit, which way
-- is better ("higher" or "lower"), the format the tables show its A and B
-- in (one fixed format for both, never an exponent: IOPS whole,
-- latencies in ms to a tenth of a microsecond, as IOMeter's results), the
-- value of a result, the per-interval series (nil: no such series), and
-- `count` for a count whose every difference is a change.
compare.metrics = {
  { key = "iops", label = "IOPS", unit = "IO/s", better = "higher", format = "%.0f", value = function(r) return r.iops end,
    series = function(iv) return iv.iops end },
  { key = "mb_per_s", label = "MB/s", unit = "MB/s (10^6 bytes)", better = "higher", format = "%.2f",
    value = function(r) return r.mb_per_s end, series = function(iv) return iv.mb_per_s end },
  { key = "p50", label = "p50 ms", unit = "ms", better = "lower", format = "%.4f",
    value = function(r) return r.lat.p50_ns / 1e6 end, series = function(iv) return iv.p50_ns and iv.p50_ns / 1e6 end },
  { key = "p99", label = "p99 ms", unit = "ms", better = "lower", format = "%.4f",
    value = function(r) return r.lat.p99_ns / 1e6 end, series = function(iv) return iv.p99_ns and iv.p99_ns / 1e6 end },
  { key = "p999", label = "p99.9 ms", unit = "ms", better = "lower", format = "%.4f",
    value = function(r) return r.lat.p999_ns / 1e6 end },
  { key = "cpu_per_io", label = "CPU us/IO", unit = "us of CPU (user + system) per I/O", better = "lower",
    format = "%.2f", value = function(r)
      local ios = r.ios or 0
      return ios > 0 and (r.cpu.user_s + r.cpu.sys_s) / ios * 1e6 or 0
    end },
  { key = "errors", label = "Errors", unit = "errors counted", better = "lower", count = true, format = "%.0f",
    value = function(r) return r.errors or 0 end },
}

--- A difference is marked only when it is larger than this share of A
-- (1 %: two of the latency histogram's buckets), whatever the spread.
compare.floor = 0.01
--- Without a per-interval series (p99.9, CPU per I/O) or with fewer than
-- two intervals in a run, a difference is marked when B/A is further than
-- this from 1.
compare.tolerance = 0.10
--- A B/A of this or more (or 1/this or less) is marked whatever the
-- spread: no noise hides a doubling.
compare.factor = 2

-- mean, sample variance and count of f over r's intervals (nil values skipped)
local function stats(r, f)
  local xs = {}
  for _, iv in ipairs(type(r.intervals) == "table" and r.intervals or {}) do
    local v = f(iv)
    if type(v) == "number" and v == v and (iv.len_s or 1) > 0 then xs[#xs + 1] = v end
  end
  local n, sum, sq = #xs, 0, 0
  for _, x in ipairs(xs) do sum = sum + x end
  local mean = n > 0 and sum / n or 0
  for _, x in ipairs(xs) do sq = sq + (x - mean) ^ 2 end
  return mean, n > 1 and sq / (n - 1) or 0, n
end

-- The |B - A| above which metric m of ra and rb differs, and its rule.
-- The spread rule: with at least two intervals in each run,
-- 2 x sqrt(sA^2/nA + sB^2/nB), sA and sB the standard deviations of the
-- metric over each run's intervals and nA, nB their counts (two standard
-- errors of the difference of the means: about 95 % confidence that the
-- runs differ), but never more than the larger of sA and sB: with few
-- intervals two standard errors exceed the spread itself, and a change
-- larger than how much a run varies from interval to interval is not
-- noise. Else the tolerance rule. Never below the floor.
local function threshold(m, ra, rb, a)
  local t, rule
  if m.series then
    local _, va, na = stats(ra, m.series)
    local _, vb, nb = stats(rb, m.series)
    if na >= 2 and nb >= 2 then
      t, rule = math.min(2 * math.sqrt(va / na + vb / nb), math.sqrt(math.max(va, vb))), "spread"
    end
  end
  if not t then t, rule = compare.tolerance * math.abs(a), "tolerance" end
  return math.max(t, compare.floor * math.abs(a)), rule
end

--- One metric of a matched pair: { a, b, ratio (nil when A and B are 0;
-- math.huge when only A is), differs, rule ("spread", "tolerance",
-- "factor" or "count"), threshold (the |B - A| above which it differs by
-- the spread or tolerance rule, in the metric's unit), change ("better"
-- or "worse" when it differs: B higher for a metric where higher is
-- better) }. A count (errors) differs whenever A and B do (rule count);
-- any other metric by its spread or tolerance (threshold above), or when
-- B/A is compare.factor or more, or 1/compare.factor or less, whatever
-- the spread (rule factor).
function compare.metric(m, ra, rb)
  local a, b = m.value(ra), m.value(rb)
  local out = { a = a, b = b }
  if a ~= 0 then out.ratio = b / a elseif b ~= 0 then out.ratio = math.huge end
  if m.count then
    out.threshold, out.rule, out.differs = 0, "count", a ~= b
  else
    out.threshold, out.rule = threshold(m, ra, rb, a)
    out.differs = math.abs(b - a) > out.threshold
    local r = out.ratio
    if not out.differs and r and (r >= compare.factor or r <= 1 / compare.factor) then
      out.differs, out.rule = true, "factor"
    end
  end
  if out.differs then out.change = ((b > a) == (m.better == "higher")) and "better" or "worse" end
  return out
end

-- what a run says about itself, for the document's header
local function run_info(d)
  local m = type(d.machine) == "table" and d.machine or {}
  return { file = d.file, iomoon = d.iomoon, machine = d.machine, hostname = m.hostname, phases = #d.phases,
    command = d.command, measured = html.measured(d.phases) }
end

-- the comparison of phase ra of A with rb of B
local function pair_of(ra, rb)
  local p = { name = ra.name == rb.name and ra.name or ra.name .. "=" .. rb.name, name_a = ra.name, name_b = rb.name,
    a = ra, b = rb, metrics = {}, differs = 0, better = 0, worse = 0, marks_a = report_rows.marks(ra),
    marks_b = report_rows.marks(rb), definition_differs = warn.definition_diff(ra, rb) }
  for _, m in ipairs(compare.metrics) do
    local c = compare.metric(m, ra, rb)
    p.metrics[m.key] = c
    if c.differs then
      p.differs = p.differs + 1
      p[c.change] = p[c.change] + 1
    end
  end
  return p
end

--- The comparison of two saved runs (iomoon.saved.load's documents) as a
-- plain table:
--   a, b: { file, iomoon, machine, hostname, phases = count, command,
--     measured ("from ... to ... UTC", html.measured) }
--   metrics: { {key, label, unit, better = "higher" | "lower"}, ... }
--   phases: one per pair, in A's order: { name (A's name, or "A=B" for
--     two names), name_a, name_b, a = result, b = result, metrics = {
--     [key] = compare.metric(...) }, differs, better, worse = counts,
--     marks_a, marks_b = what is wrong with each (report.marks:
--     interrupted, FAILED, errors, an unmet rate; empty when nothing is),
--     definition_differs = what of the workload differs (warn.definition_diff:
--     "qd (1 in A, 4 in B)"; empty when A and B ran the same) }
--   only_a, only_b: the names of phases in one run only
--   warnings: what else differed between the runs (iomoon.compare.warn)
-- opts (iomoon.compare.pairs.match): pairs = { "A=B", ... } and by =
-- "name" (default: a name that occurs k times in a run is matched
-- occurrence by occurrence) or "position".
function compare.document(da, db, opts)
  local doc = { a = run_info(da), b = run_info(db), metrics = {}, phases = {}, only_a = {}, only_b = {},
    floor = compare.floor, tolerance = compare.tolerance, factor = compare.factor }
  for i, m in ipairs(compare.metrics) do
    doc.metrics[i] = { key = m.key, label = m.label, unit = m.unit, better = m.better }
  end
  local matched, rest_a, rest_b = pairs_of.match(da, db, opts)
  for _, ij in ipairs(matched) do doc.phases[#doc.phases + 1] = pair_of(da.phases[ij[1]], db.phases[ij[2]]) end
  for _, i in ipairs(rest_a) do doc.only_a[#doc.only_a + 1] = da.phases[i].name end
  for _, j in ipairs(rest_b) do doc.only_b[#doc.only_b + 1] = db.phases[j].name end
  doc.warnings = warn.lines(doc)
  return doc
end

--- Nothing compared (no pair): an input error saying why and how to pair.
function compare.check_pairs(doc)
  if #doc.phases > 0 then return end
  local function names(side)
    local ns = doc["only_" .. side]
    return #ns > 0 and pairs_of.list(ns, 5) or "no phases"
  end
  errors.input("nothing to compare: no phase of %s has the name of one of %s (%s: %s; %s: %s); pair them with "
    .. "--pair A=B or --pair-by position", visible(doc.b.file or "B"), visible(doc.a.file or "A"),
    visible(doc.a.file or "A"), names("a"), visible(doc.b.file or "B"), names("b"))
end

-- each metric's format, by key
local FORMAT = {}
for _, m in ipairs(compare.metrics) do FORMAT[m.key] = m.format end

-- a value as the tables show it (its metric's format), or "-"
local function num(v, format)
  if v == nil then return "-" end
  if v == math.huge then return "inf" end
  return string.format(format, v)
end

--- The rows of a comparison: a header, then one per phase and metric:
-- Test name, Metric, A, B (in the metric's format), B/A, Change
-- ("better", "worse", or "" when the difference is within the rule), Rule.
function compare.rows(doc)
  local rows = { { "Test name", "Metric", "A", "B", "B/A", "Change", "Rule" } }
  for _, p in ipairs(doc.phases) do
    for _, m in ipairs(doc.metrics) do
      local c, f = p.metrics[m.key], FORMAT[m.key] or "%.3f"
      rows[#rows + 1] = { p.name, m.label, num(c.a, f), num(c.b, f), c.ratio and string.format("%.3f", c.ratio) or "-",
        c.change or "", c.rule }
    end
  end
  return rows
end

-- the lines saying what is wrong with a paired phase in either run (its
-- figures are then suspect), and which phases are in one run only
local function only_lines(doc, prefix)
  local out = {}
  for _, p in ipairs(doc.phases) do
    for _, side in ipairs({ "a", "b" }) do
      if #p["marks_" .. side] > 0 then
        out[#out + 1] = string.format("%s%s in %s: %s", prefix, visible(p.name), side:upper(),
          visible(table.concat(p["marks_" .. side], "; ")))
      end
    end
  end
  for _, side in ipairs({ "a", "b" }) do
    for _, name in ipairs(doc["only_" .. side]) do
      out[#out + 1] = string.format("%sonly in %s (%s): %s", prefix, side:upper(), visible(doc[side].file),
        visible(name))
    end
  end
  return out
end

--- What a comparison says of its rule, in one line.
function compare.rule_text(doc)
  return string.format("Change: better or worse where |B - A| exceeds 2 standard errors of the interval values, "
    .. "at most their spread (rule spread); B/A beyond 1 +- %g without them (tolerance); B/A of %g or 1/%g and "
    .. "beyond, always (factor); never within %g %% of A; errors: any difference (count). Better: higher IOPS and "
    .. "MB/s, lower latency, CPU per I/O and errors", doc.tolerance, doc.factor, doc.factor, doc.floor * 100)
end

-- the header lines: what A and B are, when they were measured, the rule
local function head_lines(doc, prefix)
  local out = {}
  for _, side in ipairs({ "a", "b" }) do
    local r = doc[side]
    out[#out + 1] = string.format("%s%s: %s (iomoon %s%s, %d phase%s, measured %s)", prefix, side:upper(),
      visible(r.file), visible(r.iomoon), r.hostname and ", " .. visible(r.hostname) or "", r.phases,
      r.phases == 1 and "" or "s", r.measured)
  end
  out[#out + 1] = prefix .. compare.rule_text(doc)
  return out
end

-- the warnings as lines
local function warning_lines(doc, prefix)
  local out = {}
  for _, w in ipairs(doc.warnings) do out[#out + 1] = prefix .. "warning: " .. visible(w) end
  return out
end

--- The comparison as an aligned text table.
function compare.table(doc)
  local rows = compare.rows(doc)
  local w = {}
  for _, row in ipairs(rows) do
    for i, cell in ipairs(row) do
      row[i] = visible(cell)
      w[i] = math.max(w[i] or 0, utf8.len(row[i]) or #row[i])
    end
  end
  local out = head_lines(doc, "")
  for _, l in ipairs(warning_lines(doc, "")) do out[#out + 1] = l end
  out[#out + 1] = ""
  for _, row in ipairs(rows) do
    local cells = {}
    for i, cell in ipairs(row) do
      local pad = string.rep(" ", w[i] - (utf8.len(cell) or #cell))
      cells[i] = (i <= 2 or i >= 6) and cell .. pad or pad .. cell
    end
    out[#out + 1] = (table.concat(cells, "  "):gsub("%s+$", ""))
  end
  for _, l in ipairs(only_lines(doc, "")) do out[#out + 1] = l end
  return table.concat(out, "\n") .. "\n"
end

--- The comparison as CSV (report.csv_string's dialect): the phases only
-- in one run as rows with Metric "only in A" or "only in B", a phase's
-- trouble as "status in A" or "status in B", and each warning as a row
-- with Metric "warning" (its text under A).
function compare.csv(doc)
  local rows = compare.rows(doc)
  for _, side in ipairs({ "a", "b" }) do
    for _, name in ipairs(doc["only_" .. side]) do
      rows[#rows + 1] = { name, "only in " .. side:upper(), "", "", "", "", "" }
    end
    for _, p in ipairs(doc.phases) do
      if #p["marks_" .. side] > 0 then
        rows[#rows + 1] = { p.name, "status in " .. side:upper(), table.concat(p["marks_" .. side], "; "), "", "", "", "" }
      end
    end
  end
  for _, wl in ipairs(doc.warnings) do rows[#rows + 1] = { "", "warning", wl, "", "", "", "" } end
  for _, row in ipairs(rows) do
    for i, cell in ipairs(row) do row[i] = util.csv_safe(cell) end
  end
  return iomoon.csv.format(rows)
end

--- The comparison as a Markdown table, a change in bold.
function compare.markdown(doc)
  local function cell(s) return (visible(s):gsub("[\\|<>]", "\\%0")) end
  local out = {}
  for _, l in ipairs(head_lines(doc, "")) do out[#out + 1] = cell(l) .. "  " end
  for _, l in ipairs(warning_lines(doc, "")) do out[#out + 1] = "**" .. cell(l) .. "**  " end
  out[#out + 1] = ""
  local rows = compare.rows(doc)
  for i, row in ipairs(rows) do
    for j, c in ipairs(row) do row[j] = cell(c) end
    if i > 1 and row[6] ~= "" then row[6] = "**" .. row[6] .. "**" end
    out[#out + 1] = "| " .. table.concat(row, " | ") .. " |"
    if i == 1 then out[#out + 1] = "|---|---|---:|---:|---:|---|---|" end
  end
  local only = only_lines(doc, "- ")
  if #only > 0 then out[#out + 1] = "" end
  for _, l in ipairs(only) do out[#out + 1] = cell(l) end
  return table.concat(out, "\n") .. "\n"
end

--- The comparison as JSON: the document without the two results of each
-- phase (their files hold them), so it stays small.
function compare.json(doc)
  local c = { a = doc.a, b = doc.b, metrics = doc.metrics, only_a = doc.only_a, only_b = doc.only_b,
    floor = doc.floor, tolerance = doc.tolerance, factor = doc.factor, warnings = doc.warnings, phases = {} }
  for i, p in ipairs(doc.phases) do
    local ms = json.object({})
    for k, v in pairs(p.metrics) do
      ms[k] = { a = v.a, b = v.b, ratio = v.ratio ~= math.huge and v.ratio or nil, differs = v.differs, rule = v.rule,
        threshold = v.threshold, change = v.change }
    end
    c.phases[i] = { name = p.name, name_a = p.name_a, name_b = p.name_b, metrics = ms, differs = p.differs,
      better = p.better, worse = p.worse, marks_a = p.marks_a, marks_b = p.marks_b,
      definition_differs = p.definition_differs }
  end
  return json.encode(c, "  ") .. "\n"
end

-- r with another name (its other fields shared, its metatable kept)
local function renamed(r, name)
  local c = {}
  for k, v in pairs(r) do c[k] = v end
  c.name = name
  return setmetatable(c, getmetatable(r))
end

-- the comparison's own styles: a better figure green, a worse one red
local CSS = "#compare tr.better td{background:#e3f4e1}#compare tr.worse td{background:#fde2e2}"
  .. "#compare td.better{color:#17692b;font-weight:600}#compare td.worse{color:#b00000;font-weight:600}"
  .. "p.warn{color:#8a5300;font-weight:600}"

-- the comparison's table, a row per phase and figure, its Change cell
-- and row classed "better" or "worse"
local function html_rows(doc, out)
  for i, row in ipairs(compare.rows(doc)) do
    local cells = {}
    for j, c in ipairs(row) do
      if i == 1 then
        cells[j] = "<th>" .. html.escape(c) .. "</th>"
      else
        local class = (j == 6 and c ~= "") and ' class="' .. c .. '"' or ""
        cells[j] = string.format("<td%s>%s</td>", class, html.escape(c))
      end
    end
    local change = i > 1 and row[6] or ""
    out[#out + 1] = string.format("<tr%s>%s</tr>", change ~= "" and ' class="' .. change .. '"' or "",
      table.concat(cells))
  end
end

--- Two runs compared, as one HTML page (compare.document's doc): first the
-- comparison, its warnings, and a row per phase and figure with both
-- values, the ratio and the change (a better row green, a worse one red);
-- then the report of both runs, each phase of A followed by B's ("NAME
-- [A]", "NAME [B]"), so that the latency distributions of the two lie on
-- the same chart, and their curves beside.
function compare.html(doc)
  local results = {}
  for _, p in ipairs(doc.phases) do
    results[#results + 1] = renamed(p.a, visible(p.name) .. " [A]")
    results[#results + 1] = renamed(p.b, visible(p.name) .. " [B]")
  end
  local out = {}
  out[#out + 1] = string.format("<h2>A against B</h2>\n<p>A: %s (%s, measured %s); B: %s (%s, measured %s). %s.</p>\n",
    html.escape(doc.a.file or "A"), html.escape(doc.a.hostname or "?"), html.escape(doc.a.measured),
    html.escape(doc.b.file or "B"), html.escape(doc.b.hostname or "?"), html.escape(doc.b.measured),
    html.escape(compare.rule_text(doc)))
  for _, w in ipairs(doc.warnings) do out[#out + 1] = '<p class="warn">warning: ' .. html.escape(w) .. "</p>\n" end
  out[#out + 1] = '<table class="sum" id="compare">'
  html_rows(doc, out)
  out[#out + 1] = "</table>\n"
  for _, l in ipairs(only_lines(doc, "")) do out[#out + 1] = "<p>" .. html.escape(l) .. "</p>\n" end
  local page = html.render(results, doc.a.machine, doc.a.iomoon)
  page = page:gsub("</style>", function() return CSS .. "</style>" end, 1)
  local at = page:find("<h2>Summary</h2>", 1, true)
  return page:sub(1, at - 1) .. table.concat(out) .. page:sub(at)
end

--- The formats compare writes.
compare.formats = { "table", "csv", "markdown", "json", "html" }

--- The comparison in `format`, as a string.
function compare.render(format, doc)
  local f = ({ table = compare.table, csv = compare.csv, markdown = compare.markdown, json = compare.json,
    html = compare.html })[format]
  if not f then
    errors.input("--format: '%s' is not a format of compare (%s)", visible(format), table.concat(compare.formats, ", "))
  end
  return f(doc)
end

return compare
