-- iomoon.report.verdict: PASS or FAIL for a suite that models a pass/fail
-- tool (jetstress, burn-in), read from its results alone (a saved JSON
-- gives the same answer): the phases carry meta.verdict, the rule's name
-- (a suite's `verdict` field puts it there); each rule is a list of checks,
-- each with its figure, its limit and whether it held; and the verdict as
-- text for the table, CSV, Markdown, JSON and HTML reports. A run with a
-- FAIL exits 1 (iomoon.cli).
local util = require "iomoon.util"

local opt, num, whole = util.opt, util.finite, util.whole

local M = {}

local function rule_of(r)
  local v = opt(opt(r, "meta"), "verdict")
  return type(v) == "string" and v or nil
end

local function ms(ns) return string.format("%.3f ms", ns / 1e6) end

-- the mean latency (ns) and count of `op` ("read", "write") over the
-- streams named `stream` of the results, weighted by their I/Os
local function mean_of(results, stream, op)
  local sum, n = 0, 0
  for _, r in ipairs(results) do
    for _, st in ipairs(opt(r, "streams") or {}) do
      local o = opt(st, op)
      local ios, mean = num(opt(o, "ios")) or 0, num(opt(opt(o, "lat"), "mean_ns"))
      if opt(st, "name") == stream and ios > 0 and mean then sum, n = sum + mean * ios, n + ios end
    end
  end
  return n > 0 and sum / n or nil, n
end

-- errors, failed and interrupted phases over the results, as one check
local function errors_check(results)
  local errs, bad = 0, {}
  for _, r in ipairs(results) do
    errs = errs + (num(opt(r, "errors")) or 0)
    if opt(r, "failed") then bad[#bad + 1] = "failed" end
    if opt(r, "interrupted") then bad[#bad + 1] = "interrupted" end
  end
  local value = whole(errs) .. (#bad > 0 and " (a phase " .. table.concat(bad, ", ") .. ")" or "")
  return { check = "I/O errors", value = value, limit = "0", pass = errs == 0 and #bad == 0 }
end

-- Microsoft Jetstress's thresholds (doc/suites.md, "jetstress"): the
-- database's reads average under 20 ms, the log's writes under 10 ms
local function latency_check(results, what, stream, op, limit_ms)
  local mean, n = mean_of(results, stream, op)
  local c = { check = what, limit = string.format("< %d ms", limit_ms) }
  if not mean then
    c.value, c.pass = string.format("no %s measured (no %ss in a stream named %q)", what:match("^(.-) latency"), op, stream), false
  else
    c.value, c.pass = ms(mean) .. string.format(" over %s %ss", whole(n), op), mean < limit_ms * 1e6
  end
  return c
end

local function jetstress(results)
  return {
    latency_check(results, "database read latency, average", "database", "read", 20),
    latency_check(results, "log write latency, average", "log", "write", 10),
    errors_check(results),
  }
end

-- burn-in: no error in any phase, and a final verify that read the whole
-- area back and found every unit as written
local function burn_in(results)
  local checks = { errors_check(results) }
  local last = results[#results]
  local v = opt(last, "verify")
  local c = { check = "final verify", limit = "every unit of the area checked, none wrong" }
  if not opt(opt(last, "definition"), "verify_only") or type(v) ~= "table" then
    c.value, c.pass = "did not run (the last phase is not a verify pass)", false
  else
    local units, unit = num(opt(v, "units_checked")) or 0, num(opt(v, "unit_bytes")) or 0
    local bytes = num(opt(opt(last, "definition"), "bytes")) or num(opt(last, "bytes")) or 0
    local unexpected = num(opt(v, "units_unexpected")) or 0
    local errs = num(opt(last, "errors")) or 0
    c.value = string.format("%s units checked of %s, %s errors", whole(units),
      unit > 0 and whole(bytes // unit) or "?", whole(errs + unexpected))
    c.pass = units > 0 and unit > 0 and units * unit >= bytes and errs == 0 and unexpected == 0
      and not opt(last, "interrupted")
  end
  checks[2] = c
  return checks
end

M.rules = {
  jetstress = { judge = jetstress, source = "Microsoft Jetstress's thresholds" },
  ["burn-in"] = { judge = burn_in, source = "zero errors and a clean final verify" },
}

--- The verdict of results, or nil when none of them carries meta.verdict:
-- { rule = "jetstress", source = "...", pass = true|false, result = "PASS"|"FAIL",
--   checks = { { check =, value =, limit =, pass = }, ... } }. A rule that
-- is not known is a FAIL saying so.
function M.of(results)
  local name, mine = nil, {}
  for _, r in ipairs(results or {}) do
    local n = rule_of(r)
    if n then name = name or n; if n == name then mine[#mine + 1] = r end end
  end
  if not name then return nil end
  local rule = M.rules[name]
  local checks = rule and rule.judge(mine)
    or { { check = "rule", value = util.shown(name), limit = "a known rule (jetstress, burn-in)", pass = false } }
  local pass = true
  for _, c in ipairs(checks) do pass = pass and c.pass end
  return { rule = name, source = rule and rule.source or "unknown", pass = pass, result = pass and "PASS" or "FAIL",
    checks = checks }
end

local function head(v)
  return string.format("verdict: %s (%s: %s)", v.result, util.shown(v.rule), v.source)
end

--- The verdict as lines of text after the table, "" when there is none.
function M.text(results)
  local v = M.of(results)
  if not v then return "" end
  local out = { "", head(v) }
  for _, c in ipairs(v.checks) do
    out[#out + 1] = string.format("  %-4s %-32s %s (rule: %s)", c.pass and "pass" or "FAIL", c.check, c.value, c.limit)
  end
  return table.concat(out, "\n") .. "\n"
end

--- The verdict as CSV rows (a header and a row per check), or nil.
function M.csv_rows(results)
  local v = M.of(results)
  if not v then return nil end
  local rows = { { "Verdict", "Rule", "Check", "Value", "Limit", "Result" } }
  for _, c in ipairs(v.checks) do
    rows[#rows + 1] = { v.result, v.rule, c.check, c.value, c.limit, c.pass and "pass" or "FAIL" }
  end
  return rows
end

local function md(s) return (util.shown(s):gsub("[\\|<>]", "\\%0")) end

--- The verdict in Markdown: a line and a table, "" when there is none.
function M.markdown(results)
  local v = M.of(results)
  if not v then return "" end
  local out = { "", "**" .. md(head(v)) .. "**", "", "| Check | Value | Rule | Result |", "|---|---|---|---|" }
  for _, c in ipairs(v.checks) do
    out[#out + 1] = string.format("| %s | %s | %s | %s |", md(c.check), md(c.value), md(c.limit), c.pass and "pass" or "FAIL")
  end
  return table.concat(out, "\n") .. "\n"
end

--- The verdict as VMware I/O Analyzer's key=value lines, a block after
-- the phases' (a blank line between): Verdict=, VerdictRule=, a Check=
-- per check; "" when there is none.
function M.analyzer(results)
  local v = M.of(results)
  if not v then return "" end
  local out = { "", "Verdict=" .. v.result, "VerdictRule=" .. util.shown(v.rule) .. ": " .. util.shown(v.source) }
  for _, c in ipairs(v.checks) do
    out[#out + 1] = string.format("Check=%s %s: %s (rule: %s)", c.pass and "pass" or "FAIL", util.shown(c.check),
      util.shown(c.value), util.shown(c.limit))
  end
  return table.concat(out, "\n") .. "\n"
end

--- The verdict for the JSON document (its `verdict`), or nil.
function M.json(results)
  return M.of(results)
end

--- The verdict as an HTML section, "" when there is none; esc: the page's escaper.
function M.html(results, esc)
  local v = M.of(results)
  if not v then return "" end
  local out = { string.format('<h2>Verdict</h2>\n<p id="verdict" class="%s"><b>%s</b> (%s: %s)</p>\n<table class="verdict">'
    .. "<tr><th>Check</th><th>Value</th><th>Rule</th><th>Result</th></tr>\n",
    v.pass and "pass" or "mark", v.result, esc(v.rule), esc(v.source)) }
  for _, c in ipairs(v.checks) do
    out[#out + 1] = string.format("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", esc(c.check), esc(c.value),
      esc(c.limit), c.pass and "pass" or '<span class="mark">FAIL</span>')
  end
  return table.concat(out) .. "</table>\n"
end

return M
