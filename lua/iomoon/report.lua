-- iomoon.report: results as the tables, CSV and JSON our users read.
--
-- The table has the columns of the IOMeter result sheets in the field
-- reports (Test name, Latency, Avg iops, Avg MBps, cpu load) with p99 added.
-- IOMeter's "MBps" is binary (2^20 bytes per second), so the column is
-- labelled MiB/s: the same quantity, named for what it is.

local iomoon = require "iomoon"
local json = require "iomoon.json"
local errors = require "iomoon.errors"

local report = {}

local function ms(ns) return (ns or 0) / 1e6 end

--- The columns of the table format: header, width, formatter.
report.columns = {
  { "Latency ms", 10, function(r) return string.format("%.3f", ms(r.lat.mean_ns)) end },
  { "Avg iops", 10, function(r) return string.format("%.0f", r.iops) end },
  { "Avg MiB/s", 10, function(r) return string.format("%.2f", r.mib_per_s) end },
  { "cpu load", 8, function(r) return string.format("%.0f%%", r.cpu.util_pct) end },
  { "p99 ms", 9, function(r) return string.format("%.3f", ms(r.lat.p99_ns)) end },
}

local function status(r)
  if r.interrupted then return "  interrupted" end
  if r.failed then return "  FAILED: " .. (r.error or "") end
  if r.errors > 0 then
    return string.format("  %d errors (%s)", r.errors,
      r.first_error and r.first_error.message or "")
  end
  return ""
end

--- A table writer: w:header(), w:row(result); `name_width` sizes column 1.
function report.table_writer(out, name_width)
  local w = { out = out, name_width = math.max(name_width or 0, 9) }
  function w:header()
    local cells = { string.format("%-" .. self.name_width .. "s", "Test name") }
    for _, c in ipairs(report.columns) do
      cells[#cells + 1] = string.format("%" .. c[2] .. "s", c[1])
    end
    self.out:write(table.concat(cells, "  "), "\n")
  end
  function w:row(r)
    local cells = { string.format("%-" .. self.name_width .. "s", r.name) }
    for _, c in ipairs(report.columns) do
      cells[#cells + 1] = string.format("%" .. c[2] .. "s", c[3](r))
    end
    self.out:write(table.concat(cells, "  "), status(r), "\n")
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
}

--- The CSV rows (header first) of a list of results, as lists of strings.
function report.csv_rows(results)
  local rows = { {} }
  for i, c in ipairs(report.csv_columns) do rows[1][i] = c[1] end
  for _, r in ipairs(results) do
    local row = {}
    for i, c in ipairs(report.csv_columns) do row[i] = c[2](r) end
    rows[#rows + 1] = row
  end
  return rows
end

--- Write results as CSV to `path` (atomically: a reader sees all or nothing).
function report.write_csv(path, results)
  local w = iomoon.csv.writer(path)
  for _, row in ipairs(report.csv_rows(results)) do w:row(row) end
  w:close()
end

--- CSV as a string (for stdout): the same rows, through the same writer.
function report.csv_string(results)
  local tmp = os.tmpname()
  report.write_csv(tmp, results)
  local f = assert(io.open(tmp, "rb"))
  local s = f:read("a")
  f:close()
  os.remove(tmp)
  return s
end

--- VMware I/O Analyzer's raw result block for one result (MBps binary, as
-- the Analyzer's are). The access spec is named by spec_name, else the
-- phase's meta.spec, else the phase's name.
function report.analyzer_block(r, spec_name)
  local lines = {
    "AccessSpec=" .. (spec_name or (r.meta and r.meta.spec) or r.name),
    string.format("IOps=%.2f", r.iops),
    string.format("ReadIOps=%.2f", r.read.iops),
    string.format("WriteIOps=%.2f", r.write.iops),
    string.format("MBps=%.2f", r.mib_per_s),
    string.format("ReadMBps=%.2f", r.read.mib_per_s),
    string.format("WriteMBps=%.2f", r.write.mib_per_s),
  }
  return table.concat(lines, "\n") .. "\n"
end

--- All results as Analyzer blocks, a blank line between them.
function report.analyzer_string(results)
  local parts = {}
  for i, r in ipairs(results) do parts[i] = report.analyzer_block(r) end
  return table.concat(parts, "\n")
end

--- A Markdown table of results: name, IOPS, MiB/s, mean and p99 latency.
function report.markdown(results)
  local out = { "| Test name | IOPS | MiB/s | Latency ms | p99 ms | cpu load |", "|---|---:|---:|---:|---:|---:|" }
  for _, r in ipairs(results) do
    out[#out + 1] = string.format("| %s | %.0f | %.2f | %.3f | %.3f | %.0f%% |", r.name:gsub("|", "\\|"), r.iops,
      r.mib_per_s, ms(r.lat.mean_ns), ms(r.lat.p99_ns), r.cpu.util_pct)
  end
  return table.concat(out, "\n") .. "\n"
end

--- The JSON document: {"iomoon": VERSION, "phases": [...]}.
function report.json_document(results)
  return json.encode({ iomoon = iomoon.version, phases = results }, "  ") .. "\n"
end

--- A report file kept complete while results come in: w:add(result)
-- rewrites `path` atomically in `format` (csv, json, table, analyzer,
-- markdown), so a long suite stopped at any point leaves a valid file
-- holding every finished phase.
function report.writer(path, format)
  local w = { path = path, format = format or "json", results = {} }
  local render = {
    csv = report.csv_string, json = report.json_document, analyzer = report.analyzer_string,
    markdown = report.markdown,
    table = function(rs)
      local buf = {}
      local sink = { write = function(_, ...) for _, s in ipairs({ ... }) do buf[#buf + 1] = s end end, flush = function() end }
      local tw = report.table_writer(sink, 36)
      tw:header()
      for _, r in ipairs(rs) do tw:row(r) end
      return table.concat(buf)
    end,
  }
  if not render[w.format] then
    errors.input("report format '%s' is not known (table, csv, json, analyzer, markdown)", tostring(format))
  end
  function w:render() return render[self.format](self.results) end
  function w:add(r)
    self.results[#self.results + 1] = r
    report.write_atomic(self.path, self:render())
  end
  function w:close() report.write_atomic(self.path, self:render()) end
  return w
end

--- Write `s` to `path` atomically: a temporary file beside it, then rename.
function report.write_atomic(path, s)
  local tmp = string.format("%s.tmp-%d-%d", path, os.time(), math.random(1 << 30))
  local f, err = io.open(tmp, "wb")
  if not f then errors.input("report: %s", err) end
  f:write(s)
  f:close()
  local ok, rerr = os.rename(tmp, path)
  if not ok then
    os.remove(tmp)
    errors.run("report: %s", rerr)
  end
end

return report
