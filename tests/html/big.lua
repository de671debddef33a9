-- tests/html/big.lua OUT [N]: an HTML report of N (1000) phases built from
-- one real sim phase (plain copies, as a saved JSON's phases are, each with
-- its own name, qd and figures), written to OUT; prints the render's CPU
-- time and wall time (ms) and the size (bytes).
local iomoon = require "iomoon"
local report = require "iomoon.report"
local out, n = arg[1], tonumber(arg[2] or 1000)
local r = iomoon.run { name = "base", engine = "sim", bs = "4k", random = 100, qd = 4, duration = "0.2s", interval = "20ms" }

-- a plain copy of a result: tables copied, histograms (userdata) left out
local function copy(t)
  if type(t) ~= "table" then return type(t) == "userdata" and nil or t end
  local c = {}
  for k, v in pairs(t) do c[k] = copy(v) end
  return c
end

local list = {}
for i = 1, n do
  local c = copy(r)
  c.name = string.format("synthetic %d", i)
  c.qd = i
  local f = 1 + i / 100
  c.iops, c.mb_per_s, c.mib_per_s = r.iops * f, r.mb_per_s * f, r.mib_per_s * f
  for _, k in ipairs { "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns", "max_ns" } do c.lat[k] = r.lat[k] * (1 + i / 300) end
  list[i] = c
end
local t0, c0 = iomoon.now(), os.clock()
local s = report.render("html", list)
local ms, cpu = (iomoon.now() - t0) / 1e6, (os.clock() - c0) * 1000
local f = assert(io.open(out, "wb"))
f:write(s)
f:close()
print(string.format("%.0f %.0f %d", cpu, ms, #s))
