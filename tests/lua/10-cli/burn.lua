-- burn.lua [PATH]: a burn-in that writes PATH (burn.dat by default)
local iomoon = require "iomoon"
iomoon.run { name = "burn", target = { path = arg[1] or "burn.dat", size = "1m" }, bs = "64k", read = 0, ios = 4 }
