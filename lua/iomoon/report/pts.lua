-- iomoon.report.pts: what a SNIA PTS run (iomoon.pts) measured, from its
-- results' meta.pts alone (a saved JSON gives the same answer): the
-- tracking variable per round, the steady-state rule applied after each
-- round (plan.is_steady), the measurement window, and the window table
-- (each block size x mix averaged over the window); and that table as
-- text for the table, CSV, Markdown and JSON reports. The HTML pages are
-- iomoon.html.pts's, over the same analysis.
local plan = require "iomoon.plan"
local pts = require "iomoon.pts"
local util = require "iomoon.util"

local opt, num = util.opt, util.finite

local M = {}

-- meta.pts of a result, when it is a PTS phase
local function meta(r)
  local m = opt(opt(r, "meta"), "pts")
  if type(m) == "table" and type(opt(m, "test")) == "string" and num(opt(m, "round")) then return m end
  return nil
end

--- Whether any of results is a PTS phase.
function M.any(results)
  for _, r in ipairs(results or {}) do if meta(r) then return true end end
  return false
end

local function cell_key(bs, read) return string.format("%d/%g", bs, read) end

--- The PTS tests among results, in the order they ran: each
-- { test, title, unit, metric, plan, track, rounds (the count), values
-- (the tracking variable per round), steady (true/false), window = {a, b},
-- figures (mean, range, fit_range, slope_per_round, intercept: the
-- window's least-squares line y = intercept + slope * round),
-- bs (the block sizes, in order), mixes (read percentages, in order),
-- table[key] = { value =, max_ns =, n = } (key "bs/read"; value: the
-- metric's mean over the window), per_round[round][key] = value,
-- written[round] (bytes written up to the end of the round),
-- precondition_bytes, purge (the purge phase's trimmed bytes, or nil) }.
function M.tests(results)
  local by, order = {}, {}
  for _, r in ipairs(results or {}) do
    local m = meta(r)
    if m then
      local name = m.test
      local t = by[name]
      if not t then
        local def = pts.TESTS[name] or {}
        t = { test = name, title = def.title or name, unit = def.unit or "IOPS", metric = def.metric or "iops",
          track = def.track, per_round = {}, written = {}, precondition_bytes = 0, bs = {}, mixes = {},
          seen_bs = {}, seen_mix = {}, rounds = 0, total_written = 0 }
        by[name] = t
        order[#order + 1] = t
      end
      if type(opt(m, "plan")) == "table" then
        t.plan = m.plan
        if type(opt(m.plan, "track")) == "table" then t.track = m.plan.track end
      end
      local bs, read, round = num(opt(m, "bs")) or 0, num(opt(m, "read")) or 0, m.round
      if opt(r, "interrupted") then t.interrupted = true end
      local wbytes = num(opt(opt(r, "write"), "bytes")) or 0
      t.total_written = t.total_written + wbytes
      if opt(m, "purge") then
        t.purge = num(opt(opt(r, "trim"), "bytes")) or 0
      elseif opt(m, "precondition") then
        t.precondition_bytes = t.precondition_bytes + wbytes
      elseif round >= 1 then
        if not t.seen_bs[bs] then t.seen_bs[bs] = true; t.bs[#t.bs + 1] = bs end
        if not t.seen_mix[read] then t.seen_mix[read] = true; t.mixes[#t.mixes + 1] = read end
        local pr = t.per_round[round] or {}
        t.per_round[round] = pr
        pr[cell_key(bs, read)] = { value = pts.value(r, t.metric), max_ns = num(opt(opt(r, "lat"), "max_ns")),
          p99_ns = num(opt(opt(r, "lat"), "p99_ns")), p9999_ns = num(opt(opt(r, "lat"), "p9999_ns")),
          iops = num(opt(r, "iops")), mb_per_s = num(opt(r, "mb_per_s")), mean_ns = num(opt(opt(r, "lat"), "mean_ns")) }
        t.rounds = math.max(t.rounds, round)
        t.written[round] = t.total_written
      end
    end
  end
  for _, t in ipairs(order) do M.judge(t) end
  return order
end

--- The steady-state rule over t's rounds (as pts.run_test applies it):
-- steady when, after some round n >= the window, the last `window` values
-- pass plan.is_steady; the window is those rounds, else the last ones.
function M.judge(t)
  local track = t.track or {}
  local key = cell_key(num(track.bs) or 4096, num(track.read) or 0)
  local field = track.field or t.metric
  t.values = {}
  for n = 1, t.rounds do
    local c = t.per_round[n] and t.per_round[n][key]
    t.values[n] = c and (field == "mean_ns" and c.mean_ns or c[field] or c.value) or 0
  end
  local w = num(opt(t.plan, "window")) or pts.SPEC.window
  t.steady = false
  for n = w, t.rounds do
    local vs = { table.unpack(t.values, 1, n) }
    local ok, f = plan.is_steady(vs, { window = w, excursion = pts.SPEC.range, slope = pts.SPEC.fit })
    if ok then t.steady, t.steady_round = true, n; break end
  end
  local last = t.steady_round or t.rounds
  local first = math.max(1, last - w + 1)
  t.window = { first, last }
  if last - first + 1 >= 2 then
    local _, f = plan.is_steady({ table.unpack(t.values, first, last) }, { window = last - first + 1,
      excursion = pts.SPEC.range, slope = pts.SPEC.fit })
    f.intercept = f.mean - f.slope_per_round * (first + last) / 2
    t.figures = f
  end
  -- the departures: the plan's, and what only the run could show
  t.departures = {}
  for _, d in ipairs(type(opt(t.plan, "departures")) == "table" and t.plan.departures or {}) do
    t.departures[#t.departures + 1] = d
  end
  local area = num(opt(t.plan, "area_bytes"))
  if t.test == "wsat" and t.steady and area and t.total_written < pts.SPEC.wsat_passes * area then
    t.departures[#t.departures + 1] = string.format("stopped at steady state after %.1f x the area written "
      .. "(the specification: until 4 x)", t.total_written / area)
  end
  t.table = {}
  for _, bs in ipairs(t.bs) do
    for _, read in ipairs(t.mixes) do
      local k = cell_key(bs, read)
      local sum, n, max, p99, p9999 = 0, 0, nil, nil, nil
      for r = first, last do
        local c = t.per_round[r] and t.per_round[r][k]
        if c and c.value then sum, n = sum + c.value, n + 1 end
        if c and c.max_ns then max = math.max(max or 0, c.max_ns) end
        if c and c.p99_ns then p99 = math.max(p99 or 0, c.p99_ns) end
        if c and c.p9999_ns then p9999 = math.max(p9999 or 0, c.p9999_ns) end
      end
      -- percentiles are never averaged: the window's highest
      if n > 0 then t.table[k] = { value = sum / n, max_ns = max, p99_ns = p99, p9999_ns = p9999, n = n } end
    end
  end
  return t
end

M.key = cell_key

-- the metric's value as shown: IOPS and MB/s to one decimal, a time in ms
local function shown(t, v)
  if v == nil then return "-" end
  if t.metric == "mean_ns" then return string.format("%.3f", v / 1e6) end
  return string.format("%.1f", v)
end
M.shown = shown

-- "IOPS", "MB/s", "mean response time ms"
local function metric_label(t)
  if t.metric == "mean_ns" then return "mean response time ms" end
  return t.unit
end
M.metric_label = metric_label

--- The verdict of test t in one line.
function M.verdict(t)
  if t.steady then
    return string.format("steady state reached in round %d (measurement window: rounds %d to %d)", t.steady_round,
      t.window[1], t.window[2])
  end
  return string.format("steady state NOT reached in %d round%s%s (the window shown: rounds %d to %d)", t.rounds,
    t.rounds == 1 and "" or "s", t.interrupted and ", the run interrupted" or "", t.window[1], t.window[2])
end

-- the rule's figures as text
local function figures_text(t)
  local f = t.figures
  if not f or not f.mean or f.mean == 0 then return "" end
  return string.format("mean %s, range %.1f %% of it (at most %d %%), least-squares excursion %.1f %% (at most %d %%)",
    shown(t, f.mean), 100 * f.range / math.abs(f.mean), pts.SPEC.range * 100, 100 * f.fit_range / math.abs(f.mean),
    pts.SPEC.fit * 100)
end
M.figures_text = figures_text

--- The window tables of test t: {label, cell -> text}; a latency test
-- has the maximum response time beside the mean.
function M.window_tables(t)
  local list = { { string.format("%s, mean of rounds %d to %d", metric_label(t), t.window[1], t.window[2]),
    function(c) return shown(t, c and c.value) end } }
  if t.metric == "mean_ns" then
    local function ms(k) return function(c) return c and c[k] and string.format("%.3f", c[k] / 1e6) or "-" end end
    list[2] = { string.format("maximum response time ms, rounds %d to %d", t.window[1], t.window[2]), ms("max_ns") }
    list[3] = { string.format("p99 response time ms, the highest of rounds %d to %d", t.window[1], t.window[2]),
      ms("p99_ns") }
    list[4] = { string.format("p99.99 response time ms, the highest of rounds %d to %d", t.window[1], t.window[2]),
      ms("p9999_ns") }
  end
  return list
end

--- The PTS section of the text table report.
function M.text(results)
  local out = {}
  for _, t in ipairs(M.tests(results)) do
    local p = t.plan or {}
    out[#out + 1] = string.format("\nSNIA PTS %s (%s, threads %s x QD %s): %s", t.title, tostring(p.spec or "?"),
      tostring(p.workers or "?"), tostring(p.qd or "?"), M.verdict(t))
    if t.track then out[#out + 1] = string.format("  tracking %s: %s", t.track.label or "", figures_text(t)) end
    for _, d in ipairs(t.departures) do
      out[#out + 1] = "  departs from the specification: " .. d
    end
    for _, wt in ipairs(M.window_tables(t)) do
      out[#out + 1] = string.format("  measurement window (%s):", wt[1])
      local head = { string.format("  %-10s", "Block size") }
      for _, read in ipairs(t.mixes) do head[#head + 1] = string.format("%10s", pts.mix_label(read)) end
      out[#out + 1] = table.concat(head)
      for _, bs in ipairs(t.bs) do
        local line = { string.format("  %-10s", pts.bs_label(bs)) }
        for _, read in ipairs(t.mixes) do line[#line + 1] = string.format("%10s", wt[2](t.table[cell_key(bs, read)])) end
        out[#out + 1] = table.concat(line)
      end
    end
  end
  return #out > 0 and table.concat(out, "\n") .. "\n" or ""
end

M.CSV_HEADER = { "PTS Test", "Block Size", "Read %", "Metric", "Window Mean", "Window Max Response ms",
  "Window First Round", "Window Last Round", "Steady State" }

--- The window table as CSV rows (M.CSV_HEADER first), or nil.
function M.csv_rows(results)
  local tests = M.tests(results)
  if #tests == 0 then return nil end
  local rows = { M.CSV_HEADER }
  for _, t in ipairs(tests) do
    for _, bs in ipairs(t.bs) do
      for _, read in ipairs(t.mixes) do
        local c = t.table[cell_key(bs, read)]
        rows[#rows + 1] = { t.test, tostring(bs), string.format("%g", read), metric_label(t), shown(t, c and c.value),
          c and c.max_ns and string.format("%.3f", c.max_ns / 1e6) or "", tostring(t.window[1]), tostring(t.window[2]),
          t.steady and "yes" or "no" }
      end
    end
  end
  return rows
end

--- The PTS section of the Markdown report.
function M.markdown(results)
  local out = {}
  for _, t in ipairs(M.tests(results)) do
    local p = t.plan or {}
    out[#out + 1] = string.format("\n### SNIA PTS %s\n\n%s; %s, threads %s x QD %s. Tracking %s: %s.\n", t.title,
      M.verdict(t), tostring(p.spec or "?"), tostring(p.workers or "?"), tostring(p.qd or "?"),
      t.track and t.track.label or "", figures_text(t))
    for _, d in ipairs(t.departures) do
      out[#out + 1] = "- departs from the specification: " .. d
    end
    for _, wt in ipairs(M.window_tables(t)) do
      out[#out + 1] = string.format("\nMeasurement window (%s):\n", wt[1])
      local head, rule = { "| Block size |" }, { "|---|" }
      for _, read in ipairs(t.mixes) do head[#head + 1] = " " .. pts.mix_label(read) .. " |"; rule[#rule + 1] = "---:|" end
      out[#out + 1] = table.concat(head)
      out[#out + 1] = table.concat(rule)
      for _, bs in ipairs(t.bs) do
        local line = { "| " .. pts.bs_label(bs) .. " |" }
        for _, read in ipairs(t.mixes) do line[#line + 1] = " " .. wt[2](t.table[cell_key(bs, read)]) .. " |" end
        out[#out + 1] = table.concat(line)
      end
    end
  end
  return #out > 0 and table.concat(out, "\n") .. "\n" or ""
end

--- The PTS summary for the JSON document: a list, one per test, or nil.
function M.json(results)
  local tests = M.tests(results)
  if #tests == 0 then return nil end
  local out = {}
  for i, t in ipairs(tests) do
    local tbl = {}
    for _, bs in ipairs(t.bs) do
      for _, read in ipairs(t.mixes) do
        local c = t.table[cell_key(bs, read)]
        if c then
          tbl[#tbl + 1] = { bs = bs, read = read, value = c.value, max_ns = c.max_ns, p99_ns = c.p99_ns,
            p9999_ns = c.p9999_ns }
        end
      end
    end
    out[i] = { test = t.test, metric = t.metric, steady = t.steady, steady_round = t.steady_round, rounds = t.rounds,
      window = t.window, values = t.values, figures = t.figures, departures = t.departures,
      precondition_bytes = t.precondition_bytes, purge_bytes = t.purge, window_table = tbl }
  end
  return out
end

return M
