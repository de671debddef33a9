-- long.lua: three phases, the second of 30 s (the test interrupts it)
local iomoon = require "iomoon"
iomoon.run { name = "first", engine = "sim", bs = "4k", qd = 2, duration = "0.3s" }
iomoon.run { name = "long", engine = "sim", bs = "4k", qd = 2, duration = "30s" }
iomoon.run { name = "never", engine = "sim", bs = "4k", qd = 2, duration = "1s" }
