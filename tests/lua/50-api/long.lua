-- long.lua PATH: two phases of 30 s on PATH, "long" then "never" (the test
-- interrupts the first)
local iomoon = require "iomoon"
iomoon.run{name = "long", target = {path = arg[1], size = "16m"}, bs = "4k", random = 100, qd = 4, duration = "30s"}
iomoon.run{name = "never", target = arg[1], bs = "4k", duration = "30s"}
