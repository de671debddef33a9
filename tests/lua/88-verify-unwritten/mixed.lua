-- mixed.lua [check]: a phase of random reads and writes with crc32c on
-- mx.dat (skip_unwritten = false with "check"); prints the errors, the
-- unexpected units, whether some were skipped, whether the counts add up to
-- the reads, and skip_unwritten
local phase = { target = "mx.dat", bs = "4k", read = 50, random = 100, ios = 4000, qd = 4, verify = "crc32c",
  on_error = "continue" }
if arg[1] == "check" then phase.skip_unwritten = false end
local r = require("iomoon").run(phase)
local v = r.verify
print(r.errors, v.units_unexpected, v.units_skipped > 0, v.units_checked + v.units_unwritten + v.units_unexpected
  + v.units_skipped == r.read.ios, tostring(v.skip_unwritten))
