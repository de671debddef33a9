-- suite-phases.lua SUITE: prints how many phases the ready suite has over a
-- 16 MiB area
local suite = require "iomoon.suite"
print(#suite.phases(suite.load(arg[1]), {area_bytes = 16 << 20}))
