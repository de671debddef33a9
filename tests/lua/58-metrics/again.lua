-- again.lua TARGET FILE: iomoon.metrics{file = FILE} from a script, then
-- the phase "again" twice (its counters add up across both) and "other"
-- once. Prints "ios NAME N" per phase run, and the errors iomoon.metrics
-- gives for a second call and for an unknown field.
local iomoon = require "iomoon"
local m = iomoon.metrics { file = arg[2] }
print("listen " .. tostring(m.listen))
for _, name in ipairs({ "again", "again", "other" }) do
  local r = iomoon.run { name = name, target = arg[1], engine = "null", bs = "4k", ios = 1000 }
  print("ios " .. name .. " " .. r.ios)
end
print(select(2, pcall(iomoon.metrics, { file = arg[2] })))
print(select(2, pcall(iomoon.metrics, { lisen = "127.0.0.1:1" })))
