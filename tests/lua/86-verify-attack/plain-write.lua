-- plain-write.lua: in one process, s.dat written with crc32c, then plainly;
-- prints whether verify_only then ran, and whether it was refused as
-- "written without verification"
local iomoon = require "iomoon"
local t = { path = "s.dat", size = "1m" }
iomoon.run { target = t, bs = "4k", read = 0, bytes = "1m", verify = "crc32c" }
iomoon.run { target = "s.dat", bs = "4k", read = 0, ios = 10 }
local ok, e = pcall(iomoon.run, { target = "s.dat", bs = "4k", verify = "crc32c", verify_only = true, on_error = "continue" })
print(ok, tostring(e):match("written since the last verified write this state knows of %(without verification") ~= nil)
