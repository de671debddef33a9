-- nohup.lua: sleeps a second; prints whether it was interrupted
local iomoon = require "iomoon"
iomoon.sleep(1)
print("done, interrupted " .. tostring(iomoon.interrupted()))
