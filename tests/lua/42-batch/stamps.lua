-- stamps.lua PATH: 3000 traced io_uring reads at qd 32, batch = 1; prints
-- the records, how many distinct submit_ns they have, and the reaps
local iomoon = require "iomoon"
local r = iomoon.run{target = arg[1], engine = "io_uring", qd = 32, bs = "4k", random = 100, ios = 3000, batch = 1, trace = 3000}
local seen, distinct = {}, 0
for _, s in ipairs(r.trace.submit_ns) do
  if not seen[s] then seen[s] = true; distinct = distinct + 1 end
end
print(#r.trace.submit_ns, distinct, r.reap_sizes.count)
