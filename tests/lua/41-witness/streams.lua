-- streams.lua FILE: two streams on one file, QD 4 and QD 2
local iomoon = require "iomoon"
iomoon.run { name = "two", target = { path = arg[1], size = "16m" }, streams = {
  { qd = 4, bs = "4k", random = 100, ios = 400 },
  { qd = 2, bs = "4k", random = 100, ios = 200 },
} }
