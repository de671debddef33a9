-- trace.lua: prints how many records trace = N kept, for 1 to 3 workers
local iomoon = require "iomoon"
local n = {}
for _, c in ipairs { { 1, 5 }, { 1, 12 }, { 2, 10 }, { 3, 10 } } do
  n[#n + 1] = #iomoon.run({ engine = "null", bs = "4k", ios = 1000, workers = c[1], trace = c[2] }).trace.start_ns
end
print(table.concat(n, " "))
