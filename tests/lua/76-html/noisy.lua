-- noisy.lua OUT: a noisy sweep of 8 queue depths (1 to 128) as an HTML
-- report in OUT, built from one real sim phase (plain copies, as a saved
-- JSON's phases are, each with its own qd, IOPS and mean latency by
-- Little's law): IOPS dip at QD 2, 8 and 32, the knee is QD 16, and the
-- phases come in another order than their loads'. Prints nothing.
local iomoon = require "iomoon"
local report = require "iomoon.report"
local out = arg[1]
local r = iomoon.run { name = "base", engine = "sim", bs = "4k", random = 100, qd = 1, duration = "0.1s", interval = "20ms" }

local function copy(t) -- tables copied, histograms (userdata) left out
  if type(t) ~= "table" then return type(t) == "userdata" and nil or t end
  local c = {}
  for k, v in pairs(t) do c[k] = copy(v) end
  return c
end

local QD = { 16, 1, 2, 4, 8, 32, 64, 128 }
local IOPS = { 30000, 9000, 7000, 15000, 12000, 29000, 31000, 30500 }
local list = {}
for i, qd in ipairs(QD) do
  local c = copy(r)
  c.name, c.qd, c.iops = "noisy QD " .. qd, qd, IOPS[i]
  if c.definition then c.definition.qd = qd end
  c.lat.mean_ns = qd * 1e9 / IOPS[i]
  c.lat.p99_ns = 3 * c.lat.mean_ns
  list[i] = c
end
local f = assert(io.open(out, "wb"))
f:write(report.render("html", list))
f:close()
