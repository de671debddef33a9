-- format.lua: prints ioping's figures (print_suffix) for a set of times,
-- sizes and counts
local f = require("iomoon.ping").format
print(f.time(310800), f.time(189800), f.time(3720000), f.time(305), f.time(0), f.time(1000124688),
  f.time(12000583), f.size(4096), f.size(0), f.size(12288), f.size(18454938), f.size(270582939649), f.size(1 << 30),
  f.int(2), f.int(4510), f.int(336600), f.int(736))
