-- many.lua TARGET N: N phases of their own names on null, 10 ms each in
-- 10 ms intervals (exported wherever the command line says).
local iomoon = require "iomoon"
for i = 1, tonumber(arg[2]) do
  iomoon.run { name = "phase " .. i, target = arg[1], engine = "null", bs = "4k", duration = "10ms",
    interval = "10ms", rate = { iops = 5000 } }
end
