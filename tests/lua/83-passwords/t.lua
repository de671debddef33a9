-- t.lua TARGET: a short phase on TARGET
local iomoon = require "iomoon"
iomoon.run { name = "s", target = arg[1], bs = "4k", duration = "0.1s" }
