-- A report of your own: run the OpenPerformanceTest workloads and write a
-- Markdown table, with the latency spread the IOMeter sheets leave out.
--
--   iomoon run --format none examples/markdown-report.lua TARGET [TIME] [OUT.md]
local iomoon = require "iomoon"
local presets = require "iomoon.presets"

local path, time, out = arg[1] or "iomoon-example.dat", arg[2] or "30s", arg[3] or "report.md"
-- an existing file or device is used at its own size; a new file is made at 1 GiB
local t = iomoon.target { path = path, size = not io.open(path) and "1g" or nil }

local rows = {}
for _, name in ipairs { "Max Throughput-100%Read", "RealLife-60%Rand-65%Read", "Max Throughput-50%Read", "Random-8k-70%Read" } do
  local p = presets.get(name)
  p.target, p.qd, p.duration = t, 16, time
  rows[#rows + 1] = iomoon.run(p)
end

local f = assert(io.open(out, "w"))
f:write("# ", path, "\n\n")
f:write("| Test | IOPS | MB/s | p50 ms | p99 ms | p99.9 ms | max ms |\n|---|---:|---:|---:|---:|---:|---:|\n")
for _, r in ipairs(rows) do
  f:write(string.format("| %s | %.0f | %.1f | %.3f | %.3f | %.3f | %.3f |\n", r.name, r.iops, r.mb_per_s,
    r.lat.p50_ns / 1e6, r.lat.p99_ns / 1e6, r.lat.p999_ns / 1e6, r.lat.max_ns / 1e6))
end
f:close()
print("wrote " .. out)
