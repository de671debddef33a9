-- iomoon.html.pts: the SNIA PTS pages of the HTML report (doc/reports.md,
-- "SNIA PTS pages"), for the results of iomoon.pts's plans: per test a
-- summary (target, settings, whether and where steady state was reached,
-- every departure from the specification), the convergence plot, the
-- steady-state window plot with its range and least-squares lines, the
-- measurement-window table and IOPS against block size per mix (WSAT:
-- IOPS against round and against data written).
--
-- The charts are SVG written here, not by the page's script: they are
-- there without it, and a saved JSON renders them the same
-- (iomoon.report.pts reads the results' meta.pts alone).
local ptsr = require "iomoon.report.pts"
local pts = require "iomoon.pts"
local util = require "iomoon.util"

local M = {}

local opt, num = util.opt, util.finite

local function esc(s)
  return (util.shown(tostring(s)):gsub("[&<>\"']", function(c) return string.format("&#%d;", c:byte()) end))
end

local COLOURS = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2" }

local function fmt_num(v)
  local a = math.abs(v)
  if a >= 1e6 then return string.format("%.3gM", v / 1e6) end
  if a >= 1e4 then return string.format("%.3gk", v / 1e3) end
  if a >= 100 or a == math.floor(a) then return string.format("%.0f", v) end
  return string.format("%.3g", v)
end

--- An SVG chart: t = { id, title, xlabel, ylabel, xlog, series = { {name,
-- points = { {x, y}, ... }, colour, dash, dots} }, xticks = { {x, label} } }.
function M.chart(t)
  local W, H, L, R, T, B = 640, 300, 64, 150, 28, 40
  local xs, ys = {}, {}
  for _, s in ipairs(t.series) do
    for _, p in ipairs(s.points) do
      if num(p[1]) and num(p[2]) then xs[#xs + 1] = p[1]; ys[#ys + 1] = p[2] end
    end
  end
  local out = { string.format('<figure class="pts"><svg class="pts-chart" id="%s" data-series="%d" viewBox="0 0 %d %d" '
    .. 'width="%d" height="%d" role="img" aria-label="%s"><title>%s</title>', esc(t.id), #t.series, W, H, W, H,
    esc(t.title), esc(t.title)) }
  if #xs == 0 then
    out[#out + 1] = string.format('<text x="%d" y="%d">no data</text></svg></figure>\n', L, H // 2)
    return table.concat(out)
  end
  local function tx(x) return t.xlog and math.log(x, 2) or x end
  local x0, x1 = math.huge, -math.huge
  for _, x in ipairs(xs) do x0, x1 = math.min(x0, tx(x)), math.max(x1, tx(x)) end
  local y1 = -math.huge
  for _, y in ipairs(ys) do y1 = math.max(y1, y) end
  local y0 = 0
  if y1 <= 0 then y1 = 1 end
  y1 = y1 * 1.08
  if x1 == x0 then x0, x1 = x0 - 1, x1 + 1 end
  local function px(x) return L + (tx(x) - x0) / (x1 - x0) * (W - L - R) end
  local function py(y) return H - B - (y - y0) / (y1 - y0) * (H - T - B) end
  -- axes and ticks
  out[#out + 1] = string.format('<g class="axes" stroke="#888" fill="none"><path d="M%d %d V%d H%d"/></g>', L, T, H - B,
    W - R)
  for i = 0, 4 do
    local y = y0 + (y1 - y0) * i / 4
    out[#out + 1] = string.format('<text x="%d" y="%.1f" text-anchor="end" font-size="11">%s</text>'
      .. '<path d="M%d %.1f H%d" stroke="#eee"/>', L - 4, py(y) + 4, fmt_num(y), L + 1, py(y), W - R)
  end
  local ticks = t.xticks
  if not ticks then
    ticks = {}
    local seen = {}
    for _, x in ipairs(xs) do if not seen[x] then seen[x] = true; ticks[#ticks + 1] = { x, fmt_num(x) } end end
    table.sort(ticks, function(a, b) return a[1] < b[1] end)
    if #ticks > 12 then
      local step = math.ceil(#ticks / 12)
      local thin = {}
      for i = 1, #ticks, step do thin[#thin + 1] = ticks[i] end
      ticks = thin
    end
  end
  for _, tk in ipairs(ticks) do
    out[#out + 1] = string.format('<text x="%.1f" y="%d" text-anchor="middle" font-size="11">%s</text>', px(tk[1]),
      H - B + 14, esc(tk[2]))
  end
  out[#out + 1] = string.format('<text x="%d" y="%d" text-anchor="middle" font-size="12">%s</text>', L + (W - L - R) // 2,
    H - 6, esc(t.xlabel or ""))
  local mid = T + (H - T - B) // 2
  out[#out + 1] = string.format('<text x="12" y="%d" font-size="12" transform="rotate(-90 12 %d)" '
    .. 'text-anchor="middle">%s</text>', mid, mid, esc(t.ylabel or ""))
  out[#out + 1] = string.format('<text x="%d" y="16" font-size="13" font-weight="bold">%s</text>', L, esc(t.title))
  -- the series, each a path (and dots) and a legend entry
  for i, s in ipairs(t.series) do
    local colour = s.colour or COLOURS[(i - 1) % #COLOURS + 1]
    local d = {}
    for _, p in ipairs(s.points) do
      if num(p[1]) and num(p[2]) then
        d[#d + 1] = string.format("%s%.1f %.1f", #d == 0 and "M" or "L", px(p[1]), py(p[2]))
      end
    end
    local dash = s.dash and string.format(' stroke-dasharray="%s"', s.dash) or ""
    out[#out + 1] = string.format('<path class="series" data-name="%s" d="%s" fill="none" stroke="%s" '
      .. 'stroke-width="%s"%s/>', esc(s.name), table.concat(d, " "), colour, s.width or "1.8", dash)
    if s.dots ~= false then
      for _, p in ipairs(s.points) do
        if num(p[1]) and num(p[2]) then
          out[#out + 1] = string.format('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>', px(p[1]), py(p[2]), colour)
        end
      end
    end
    local ly = T + 4 + (i - 1) * 16
    out[#out + 1] = string.format('<path d="M%d %d h18" stroke="%s" stroke-width="2"%s/>'
      .. '<text x="%d" y="%d" font-size="11">%s</text>', W - R + 8, ly, colour, dash, W - R + 30, ly + 4, esc(s.name))
  end
  out[#out + 1] = "</svg></figure>\n"
  return table.concat(out)
end

-- the metric of t as plotted: ms for a time
local function plotted(t, v)
  if v == nil then return nil end
  if t.metric == "mean_ns" then return v / 1e6 end
  return v
end

local function ylabel(t) return t.metric == "mean_ns" and "mean response time (ms)" or t.unit end

local function bytes_text(n)
  if not n then return "-" end
  if n >= 1 << 30 then return string.format("%.2f GiB", n / (1 << 30)) end
  return string.format("%.1f MiB", n / (1 << 20))
end

-- the summary table of test t
local function summary(t, target)
  local p = t.plan or {}
  local rows = {
    { "Target", target or "-" },
    { "Specification", string.format("%s (profile %s)", tostring(p.spec or "?"), tostring(p.profile or "?")) },
    { "Threads x queue depth", string.format("%s x %s", tostring(p.workers or "?"), tostring(p.qd or "?")) },
    { "Test area", bytes_text(num(p.area_bytes)) .. (num(p.active_range_pct) and p.active_range_pct < 100
      and string.format(" (ActiveRange %d %%)", p.active_range_pct) or "") },
    { "Purge", tostring(p.purge or "-") },
    { "Preconditioning", t.precondition_bytes > 0 and string.format("%s written, 128 KiB sequential",
      bytes_text(t.precondition_bytes)) or "none" },
    { "Round", string.format("%s s per cell, at most %s rounds, %s-round window", tostring(p.round_s or "?"),
      tostring(p.max_rounds or "?"), tostring(p.window or pts.SPEC.window)) },
    { "Tracking variable", t.track and t.track.label or "-" },
    { "Steady state", ptsr.verdict(t) },
    { "The rule's figures", ptsr.figures_text(t) },
  }
  local out = { string.format('<table class="kv pts-summary" id="pts-%s-summary">', esc(t.test)) }
  for _, r in ipairs(rows) do
    out[#out + 1] = string.format("<tr><td>%s</td><td%s>%s</td></tr>", esc(r[1]),
      r[1] == "Steady state" and (t.steady and ' class="ok"' or ' class="mark"') or "", esc(r[2]))
  end
  out[#out + 1] = "</table>\n"
  local deps = t.departures or {}
  out[#out + 1] = string.format('<p class="note">Departures from the specification: %s</p>\n',
    #deps == 0 and "none" or "")
  if #deps > 0 then
    out[#out + 1] = string.format('<ul class="pts-departures" id="pts-%s-departures">', esc(t.test))
    for _, d in ipairs(deps) do out[#out + 1] = "<li>" .. esc(d) .. "</li>" end
    out[#out + 1] = "</ul>\n"
  end
  return table.concat(out)
end

-- the convergence plot: the tracking mix's metric per round, a line per block size
local function convergence(t)
  local series = {}
  local read = t.track and t.track.read or 0
  for _, bs in ipairs(t.bs) do
    local pts_ = {}
    for n = 1, t.rounds do
      local c = t.per_round[n] and t.per_round[n][ptsr.key(bs, read)]
      if c then pts_[#pts_ + 1] = { n, plotted(t, c.value) } end
    end
    if #pts_ > 0 then series[#series + 1] = { name = pts.bs_label(bs), points = pts_ } end
  end
  return M.chart { id = "pts-" .. t.test .. "-convergence", title = string.format("%s: steady-state convergence (%s)",
    t.title, pts.mix_label(read)), xlabel = "round", ylabel = ylabel(t), series = series }
end

-- the window plot: the tracking variable in the window, its mean, the
-- range limits (mean +/- 10 %, a 20 % band) and the least-squares line
local function window_plot(t)
  local a, b = t.window[1], t.window[2]
  local f = t.figures or {}
  local vals = {}
  for n = a, b do vals[#vals + 1] = { n, plotted(t, t.values[n]) } end
  local series = { { name = t.track and "tracking" or "values", points = vals } }
  if f.mean then
    local m = plotted(t, f.mean)
    series[#series + 1] = { name = "mean", points = { { a, m }, { b, m } }, colour = "#444", dots = false }
    series[#series + 1] = { name = "110 % of mean", points = { { a, 1.1 * m }, { b, 1.1 * m } }, colour = "#999",
      dash = "4 3", dots = false }
    series[#series + 1] = { name = "90 % of mean", points = { { a, 0.9 * m }, { b, 0.9 * m } }, colour = "#999",
      dash = "4 3", dots = false }
    series[#series + 1] = { name = "least squares", points = { { a, plotted(t, f.intercept + f.slope_per_round * a) },
      { b, plotted(t, f.intercept + f.slope_per_round * b) } }, colour = "#d62728", dash = "6 2", dots = false }
  end
  return M.chart { id = "pts-" .. t.test .. "-window", title = string.format("%s: steady-state window, rounds %d to %d",
    t.title, a, b), xlabel = "round", ylabel = ylabel(t), series = series }
end

-- the measurement-window table(s) as HTML
local function window_table(t)
  local out = {}
  for j, wt in ipairs(ptsr.window_tables(t)) do
    out[#out + 1] = string.format('<p class="note">Measurement window: %s</p><table class="pts-window" id="pts-%s-table%s">'
      .. '<thead><tr><th class="n">Block size</th>', esc(wt[1]), esc(t.test), j == 1 and "" or tostring(j))
    for _, read in ipairs(t.mixes) do out[#out + 1] = "<th>" .. esc(pts.mix_label(read)) .. "</th>" end
    out[#out + 1] = "</tr></thead><tbody>"
    for _, bs in ipairs(t.bs) do
      out[#out + 1] = '<tr><td class="n">' .. esc(pts.bs_label(bs)) .. "</td>"
      for _, read in ipairs(t.mixes) do out[#out + 1] = "<td>" .. esc(wt[2](t.table[ptsr.key(bs, read)])) .. "</td>" end
      out[#out + 1] = "</tr>"
    end
    out[#out + 1] = "</tbody></table>\n"
  end
  return table.concat(out)
end

-- the 2D plot: the window's metric against block size, a line per mix
local function by_bs(t)
  local series = {}
  local ticks = {}
  for _, bs in ipairs(t.bs) do ticks[#ticks + 1] = { bs, (pts.bs_label(bs):gsub(" KiB", "K")) } end
  for _, read in ipairs(t.mixes) do
    local p = {}
    for _, bs in ipairs(t.bs) do
      local c = t.table[ptsr.key(bs, read)]
      if c then p[#p + 1] = { bs, plotted(t, c.value) } end
    end
    table.sort(p, function(x, y) return x[1] < y[1] end)
    series[#series + 1] = { name = pts.mix_label(read), points = p }
  end
  return M.chart { id = "pts-" .. t.test .. "-2d", title = string.format("%s: %s against block size, per R/W mix",
    t.title, ylabel(t)), xlabel = "block size", ylabel = ylabel(t), xlog = true, xticks = ticks, series = series }
end

-- WSAT: IOPS against the data written (GiB)
local function against_written(t)
  local p = {}
  for n = 1, t.rounds do
    if t.written[n] then p[#p + 1] = { t.written[n] / (1 << 30), plotted(t, t.values[n]) } end
  end
  return M.chart { id = "pts-" .. t.test .. "-written", title = string.format("%s: IOPS against data written", t.title),
    xlabel = "data written (GiB)", ylabel = ylabel(t), series = { { name = "4 KiB RND W", points = p } } }
end

-- what machine m says of the target at `path`: "block device vda, QEMU
-- HARDDISK, non-rotational", or nil
local function device_text(m, path)
  for _, tg in ipairs(type(opt(m, "targets")) == "table" and m.targets or {}) do
    if opt(tg, "path") == path then
      local parts = {}
      for _, k in ipairs({ "kind", "filesystem", "device", "model" }) do
        local v = opt(tg, k)
        local lead = k == "filesystem" and "on " or k == "device" and "device " or ""
        if v ~= nil and v ~= "" then parts[#parts + 1] = lead .. tostring(v) end
      end
      local rot = opt(tg, "rotational")
      if rot ~= nil then parts[#parts + 1] = rot == true and "rotational" or "non-rotational" end
      return #parts > 0 and table.concat(parts, ", ") or nil
    end
  end
  return nil
end

--- The PTS pages of results as HTML ("" when none is a PTS phase);
-- machine: the run's machine description (its targets name the device).
function M.render(results, machine)
  if not ptsr.any(results) then return "" end
  local target
  for _, r in ipairs(results) do
    local tg = opt(r, "target")
    target = target or (type(tg) == "string" and tg) or opt(tg, "path")
    if not target and type(opt(r, "targets")) == "table" then target = opt(r.targets[1], "path") end
    if target then break end
  end
  local out = { '<h2 id="pts">SNIA PTS</h2>\n' }
  for _, t in ipairs(ptsr.tests(results)) do
    out[#out + 1] = string.format('<section class="pts" id="pts-%s"><h3>SNIA PTS %s</h3>\n', esc(t.test), esc(t.title))
    local dev = target and device_text(machine, target)
    out[#out + 1] = summary(t, target and (tostring(target) .. (dev and " (" .. dev .. ")" or "")))
    out[#out + 1] = convergence(t)
    out[#out + 1] = window_plot(t)
    out[#out + 1] = window_table(t)
    if t.test == "wsat" then out[#out + 1] = against_written(t)
    elseif #t.bs > 1 then out[#out + 1] = by_bs(t) end
    out[#out + 1] = "</section>\n"
  end
  return table.concat(out)
end

return M
