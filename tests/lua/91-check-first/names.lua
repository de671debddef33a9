-- names.lua: prints what iomoon.check says of a name with a NUL byte and
-- of one of 300 bytes
local iomoon = require "iomoon"
print(select(2, pcall(iomoon.check, { engine = "null", bs = "4k", name = "a\0b" })))
print(select(2, pcall(iomoon.check, { engine = "null", bs = "4k", name = string.rep("n", 300) })))
