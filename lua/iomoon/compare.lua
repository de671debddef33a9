-- iomoon.compare: two runs side by side (`iomoon compare A.json B.json`,
-- doc/reports.md). Phases are matched by name; per phase, each metric's
-- value in A and in B, the ratio B/A, and whether the difference is larger
-- than the runs' own spread from interval to interval.

local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local json = require "iomoon.json"
local util = require "iomoon.util"
local report_rows = require "iomoon.report.rows"
local html = require "iomoon.html"

local compare = {}

local visible = util.shown

--- The metrics compared, in the order shown: key, label, unit, the value
-- of a result, and the per-interval series (nil: no such series).
compare.metrics = {
  { key = "iops", label = "IOPS", unit = "IO/s", value = function(r) return r.iops end,
    series = function(iv) return iv.iops end },
  { key = "mb_per_s", label = "MB/s", unit = "MB/s (10^6 bytes)", value = function(r) return r.mb_per_s end,
    series = function(iv) return iv.mb_per_s end },
  { key = "p50", label = "p50 ms", unit = "ms", value = function(r) return r.lat.p50_ns / 1e6 end,
    series = function(iv) return iv.p50_ns and iv.p50_ns / 1e6 end },
  { key = "p99", label = "p99 ms", unit = "ms", value = function(r) return r.lat.p99_ns / 1e6 end,
    series = function(iv) return iv.p99_ns and iv.p99_ns / 1e6 end },
  { key = "p999", label = "p99.9 ms", unit = "ms", value = function(r) return r.lat.p999_ns / 1e6 end },
  { key = "cpu_per_io", label = "CPU us/IO", unit = "us of CPU (user + system) per I/O",
    value = function(r)
      local ios = r.ios or 0
      return ios > 0 and (r.cpu.user_s + r.cpu.sys_s) / ios * 1e6 or 0
    end },
}

--- A difference is marked only when it is larger than this share of A
-- (1 %: two of the latency histogram's buckets), whatever the spread.
compare.floor = 0.01
--- Without a per-interval series (p99.9, CPU per I/O) or with fewer than
-- two intervals in a run, a difference is marked when B/A is further than
-- this from 1.
compare.tolerance = 0.10

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

--- One metric of a matched pair: { a, b, ratio (nil when A and B are 0;
-- math.huge when only A is), differs, rule ("spread" or "tolerance"),
-- threshold (the |B - A| above which it differs, in the metric's unit) }.
-- The spread rule: with at least two intervals in each run, the
-- difference differs when |B - A| > 2 x sqrt(sA^2/nA + sB^2/nB), sA and
-- sB the standard deviations of the metric over each run's intervals and
-- nA, nB their counts (two standard errors of the difference of the
-- means: about 95 % confidence that the runs differ); never below the floor.
function compare.metric(m, ra, rb)
  local a, b = m.value(ra), m.value(rb)
  local out = { a = a, b = b }
  if a ~= 0 then out.ratio = b / a elseif b ~= 0 then out.ratio = math.huge end
  local threshold
  if m.series then
    local _, va, na = stats(ra, m.series)
    local _, vb, nb = stats(rb, m.series)
    if na >= 2 and nb >= 2 then
      threshold = 2 * math.sqrt(va / na + vb / nb)
      out.rule = "spread"
    end
  end
  if not threshold then
    threshold = compare.tolerance * math.abs(a)
    out.rule = "tolerance"
  end
  threshold = math.max(threshold, compare.floor * math.abs(a))
  out.threshold = threshold
  out.differs = math.abs(b - a) > threshold
  return out
end

-- name -> list of the results of that name, in order; and the names in order
local function by_name(phases)
  local map, order = {}, {}
  for _, r in ipairs(phases) do
    if not map[r.name] then map[r.name] = {}; order[#order + 1] = r.name end
    table.insert(map[r.name], r)
  end
  return map, order
end

-- what a run says about itself, for the document's header
local function run_info(d)
  local m = type(d.machine) == "table" and d.machine or {}
  return { file = d.file, iomoon = d.iomoon, machine = d.machine, hostname = m.hostname, phases = #d.phases }
end

--- The comparison of two saved runs (iomoon.saved.load's documents) as a
-- plain table:
--   a, b: { file, iomoon, machine, hostname, phases = count }
--   metrics: { {key, label, unit}, ... }
--   phases: one per name in both, in A's order: { name, a = result,
--     b = result, metrics = { [key] = compare.metric(...) }, differs = count,
--     marks_a, marks_b = what is wrong with each (report.marks: interrupted,
--     FAILED, errors, an unmet rate; empty when nothing is) }
--   only_a, only_b: the names of phases in one run only
-- A name that occurs k times in a run is matched occurrence by
-- occurrence (the k-th in A with the k-th in B).
function compare.document(da, db)
  local doc = { a = run_info(da), b = run_info(db), metrics = {}, phases = {}, only_a = {}, only_b = {},
    floor = compare.floor, tolerance = compare.tolerance }
  for i, m in ipairs(compare.metrics) do doc.metrics[i] = { key = m.key, label = m.label, unit = m.unit } end
  local mb = by_name(db.phases)
  local ma, order_a = by_name(da.phases)
  local _, order_b = by_name(db.phases)
  for _, name in ipairs(order_a) do
    local la, lb = ma[name], mb[name] or {}
    for k = 1, math.max(#la, #lb) do
      if la[k] and lb[k] then
        local p = { name = name, a = la[k], b = lb[k], metrics = {}, differs = 0, marks_a = report_rows.marks(la[k]),
          marks_b = report_rows.marks(lb[k]) }
        for _, m in ipairs(compare.metrics) do
          p.metrics[m.key] = compare.metric(m, la[k], lb[k])
          if p.metrics[m.key].differs then p.differs = p.differs + 1 end
        end
        doc.phases[#doc.phases + 1] = p
      elseif la[k] then
        doc.only_a[#doc.only_a + 1] = name
      else
        doc.only_b[#doc.only_b + 1] = name
      end
    end
  end
  for _, name in ipairs(order_b) do
    if not ma[name] then
      for _ = 1, #mb[name] do doc.only_b[#doc.only_b + 1] = name end
    end
  end
  return doc
end

-- a number as the tables show it (whole from 1000, 2 decimals from 1, else 4 digits), or "-"
local function num(v)
  if v == nil then return "-" end
  if v == math.huge then return "inf" end
  if math.abs(v) >= 1000 then return string.format("%.0f", v) end
  if math.abs(v) >= 1 then return string.format("%.2f", v) end
  return string.format("%.4g", v)
end

--- The rows of a comparison: a header, then one per phase and metric:
-- Test name, Metric, A, B, B/A, Differs ("yes" or ""), Rule.
function compare.rows(doc)
  local rows = { { "Test name", "Metric", "A", "B", "B/A", "Differs", "Rule" } }
  for _, p in ipairs(doc.phases) do
    for _, m in ipairs(doc.metrics) do
      local c = p.metrics[m.key]
      rows[#rows + 1] = { p.name, m.label, num(c.a), num(c.b), c.ratio and string.format("%.3f", c.ratio) or "-",
        c.differs and "yes" or "", c.rule }
    end
  end
  return rows
end

-- the lines saying which phases are in one run only, and what is wrong
-- with a matched phase in either run (its figures are then suspect)
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

-- the header lines: what A and B are, and the rule
local function head_lines(doc, prefix)
  local out = {}
  for _, side in ipairs({ "a", "b" }) do
    local r = doc[side]
    out[#out + 1] = string.format("%s%s: %s (iomoon %s%s, %d phase%s)", prefix, side:upper(), visible(r.file),
      visible(r.iomoon), r.hostname and ", " .. visible(r.hostname) or "", r.phases, r.phases == 1 and "" or "s")
  end
  out[#out + 1] = prefix .. "Differs: |B - A| above 2 standard errors of the interval values (rule spread), or B/A "
    .. string.format("beyond 1 +- %g without them (rule tolerance); never within %g %% of A", doc.tolerance,
      doc.floor * 100)
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

--- The comparison as CSV (report.csv_string's dialect), the phases only
-- in one run as rows with Metric "only in A" or "only in B".
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
  for _, row in ipairs(rows) do
    for i, cell in ipairs(row) do row[i] = util.csv_safe(cell) end
  end
  return iomoon.csv.format(rows)
end

--- The comparison as a Markdown table.
function compare.markdown(doc)
  local function cell(s) return (visible(s):gsub("[\\|<>]", "\\%0")) end
  local out = {}
  for _, l in ipairs(head_lines(doc, "")) do out[#out + 1] = cell(l) .. "  " end
  out[#out + 1] = ""
  local rows = compare.rows(doc)
  for i, row in ipairs(rows) do
    for j, c in ipairs(row) do row[j] = cell(c) end
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
    floor = doc.floor, tolerance = doc.tolerance, phases = {} }
  for i, p in ipairs(doc.phases) do
    local ms = json.object({})
    for k, v in pairs(p.metrics) do
      ms[k] = { a = v.a, b = v.b, ratio = v.ratio ~= math.huge and v.ratio or nil, differs = v.differs, rule = v.rule,
        threshold = v.threshold }
    end
    c.phases[i] = { name = p.name, metrics = ms, differs = p.differs, marks_a = p.marks_a, marks_b = p.marks_b }
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

--- Two runs compared, as one HTML page (compare.document's doc): first the comparison, a
-- row per phase and figure with both values, the ratio and whether it
-- differs beyond the runs' spread; then the report of both runs, each
-- phase of A followed by B's ("NAME [A]", "NAME [B]"), so that the latency
-- distributions of the two lie on the same chart, and their curves beside.
function compare.html(doc)
  local results = {}
  for _, p in ipairs(doc.phases) do
    results[#results + 1] = renamed(p.a, visible(p.name) .. " [A]")
    results[#results + 1] = renamed(p.b, visible(p.name) .. " [B]")
  end
  local rows, out = compare.rows(doc), {}
  out[#out + 1] = string.format('<h2>A against B</h2>\n<p>A: %s (%s); B: %s (%s). A difference is marked where it is '
    .. 'larger than the runs\' spread (doc/reports.md).</p>\n<table class="sum" id="compare">',
    html.escape(doc.a.file or "A"), html.escape(doc.a.hostname or "?"), html.escape(doc.b.file or "B"), html.escape(doc.b.hostname or "?"))
  for i, row in ipairs(rows) do
    local cells = {}
    for j, c in ipairs(row) do
      cells[j] = string.format(i == 1 and "<th>%s</th>" or "<td>%s</td>", html.escape(c))
    end
    out[#out + 1] = string.format("<tr%s>%s</tr>", row[6] == "yes" and ' class="err"' or "", table.concat(cells))
  end
  out[#out + 1] = "</table>\n"
  for _, name in ipairs(doc.only_a) do out[#out + 1] = "<p>only in A: " .. html.escape(name) .. "</p>\n" end
  for _, name in ipairs(doc.only_b) do out[#out + 1] = "<p>only in B: " .. html.escape(name) .. "</p>\n" end
  local page = html.render(results, doc.a.machine, doc.a.iomoon)
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
