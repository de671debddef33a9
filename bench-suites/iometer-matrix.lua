-- iometer-matrix: the 18-test IOMeter matrix of seed 000 (three iSCSI arrays
-- compared from a VMware guest): transfer sizes 4K, 16K and 32K, each at
-- 100 %, 50 % and 0 % read, sequential and then random.
--
-- Where the numbers come from: the seed ran the pre-configured VMware
-- IOMeter file; its rows hold IOPS x latency = 32 throughout (Little's law,
-- e.g. 23820 IOPS x 1.34 ms), so 32 outstanding I/Os; and it moved from
-- the file's 8 GB test area to 20 GB "to make sure that I wasn't using any
-- cache". The duration is iomoon's choice (the seed does not say): 60 s
-- after a 5 s ramp; --time and --ramp change it.
local suite = require "iomoon.suite"

return {
  name = "iometer-matrix",
  description = "seed 000's 18 tests: 4K/16K/32K x 100/50/0 % read x 0/100 % random, QD 32, 20 GiB",
  source = "seed 000: IOMeter on three iSCSI arrays (Dell EqualLogic PS4000, PS6100, FreeNAS)",
  size = "20g",
  name_width = 34,
  defaults = { qd = 32, ramp = "5s", duration = "60s" },
  phases = function()
    local phases = suite.for_each { random = { 0, 100 }, bs = { "4k", "16k", "32k" }, read = { 100, 50, 0 },
      order = { "random", "bs", "read" } }
    for _, p in ipairs(phases) do p.name = suite.iometer_name(p) end
    return phases
  end,
}
