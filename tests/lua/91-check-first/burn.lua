-- burn.lua: up to 100 short phases on ours.dat, a 2 s sleep after each,
-- until interrupted
local iomoon = require "iomoon"
for i = 1, 100 do
  iomoon.run { name = "round " .. i, target = "ours.dat", engine = "sim", bs = "4k", duration = "0.1s" }
  iomoon.sleep(2)
  if iomoon.interrupted() then break end
end
