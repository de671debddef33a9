-- write-half.lua FILE: the first half of a new 1 MiB FILE written with crc32c
local iomoon = require "iomoon"
iomoon.run { target = { path = arg[1], size = "1m" }, bs = "4k", read = 0, region = { offset = 0, size = "512k" }, bytes = "512k", verify = "crc32c" }
