-- run.lua LATENCY ONLY OUT: phase p1 on sim at LATENCY, a phase named ONLY
-- (in this run only), and one of two streams ("mixed"); then writes what
-- this very run prints in each format, from the results it made, to
-- OUT.csv, OUT.markdown, OUT.table and OUT.analyzer
local iomoon = require "iomoon"
local report = require "iomoon.report"
local lat, only, out = arg[1], arg[2], arg[3]
local results = {}
iomoon.on_result(function(r) results[#results + 1] = r end)
iomoon.run { name = "p1", engine = "sim", sim_latency = lat, qd = 1, bs = "4k", duration = "1s", interval = "100ms" }
iomoon.run { name = only, engine = "sim", bs = "8k", read = 70, duration = "0.2s", interval = "100ms",
  meta = { spec = "8k 70% read" } }
iomoon.run { name = "mixed", engine = "sim", duration = "0.2s", interval = "100ms",
  streams = { { name = "reader", bs = "4k", qd = 2 }, { name = "writer", bs = "64k", read = 0, rate = 200 } } }
-- what this very run prints in each format, from the results it made
for _, f in ipairs({ "csv", "markdown", "table", "analyzer" }) do
  local fh = assert(io.open(out .. "." .. f, "wb"))
  fh:write(report.render(f, results))
  fh:close()
end
