-- target.lua TARGET: opens TARGET with iomoon.target
local t = require("iomoon").target { path = arg[1] }
