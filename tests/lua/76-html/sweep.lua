-- sweep.lua: a sweep of 12 queue depths on sim, 1 to 2048
local iomoon = require "iomoon"
for _, qd in ipairs { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048 } do
  iomoon.run { name = "sim 4k randread QD " .. qd, engine = "sim", bs = "4k", random = 100, qd = qd,
    duration = "0.1s", interval = "10ms" }
end
