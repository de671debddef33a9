-- iomoon.report: results as the tables, CSV and JSON our users read.
--
-- The table has the columns of the IOMeter result sheets in the field
-- reports (Test name, Latency, Avg iops, Avg MBps, cpu load) with p99 added.
-- IOMeter's "MBps" is binary (2^20 bytes per second), so the column is
-- labelled MiB/s: the same quantity, named for what it is.

local iomoon = require "iomoon"
local json = require "iomoon.json"

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

--- CSV columns: name and the figures, units in every header.
report.csv_columns = {
  { "name", function(r) return r.name end },
  { "engine", function(r) return r.engine end },
  { "workers", function(r) return r.workers end },
  { "qd", function(r) return r.qd end },
  { "seconds", function(r) return string.format("%.3f", r.seconds) end },
  { "ios", function(r) return r.ios end },
  { "iops", function(r) return string.format("%.2f", r.iops) end },
  { "read_iops", function(r) return string.format("%.2f", r.read.iops) end },
  { "write_iops", function(r) return string.format("%.2f", r.write.iops) end },
  { "mb_per_s", function(r) return string.format("%.3f", r.mb_per_s) end },
  { "read_mb_per_s", function(r) return string.format("%.3f", r.read.mb_per_s) end },
  { "write_mb_per_s", function(r) return string.format("%.3f", r.write.mb_per_s) end },
  { "mib_per_s", function(r) return string.format("%.3f", r.mib_per_s) end },
  { "lat_mean_ms", function(r) return string.format("%.4f", ms(r.lat.mean_ns)) end },
  { "lat_max_ms", function(r) return string.format("%.4f", ms(r.lat.max_ns)) end },
  { "lat_p50_ms", function(r) return string.format("%.4f", ms(r.lat.p50_ns)) end },
  { "lat_p99_ms", function(r) return string.format("%.4f", ms(r.lat.p99_ns)) end },
  { "lat_p999_ms", function(r) return string.format("%.4f", ms(r.lat.p999_ns)) end },
  { "cpu_util_pct", function(r) return string.format("%.1f", r.cpu.util_pct) end },
  { "errors", function(r) return r.errors end },
}

--- Write results as CSV to `path` (atomically: a reader sees all or nothing).
function report.write_csv(path, results)
  local w = iomoon.csv.writer(path)
  local header = {}
  for i, c in ipairs(report.csv_columns) do header[i] = c[1] end
  w:row(header)
  for _, r in ipairs(results) do
    local row = {}
    for i, c in ipairs(report.csv_columns) do row[i] = c[2](r) end
    w:row(row)
  end
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

--- The JSON document: {"iomoon": VERSION, "phases": [...]}.
function report.json_document(results)
  return json.encode({ iomoon = iomoon.version, phases = results }, "  ") .. "\n"
end

return report
