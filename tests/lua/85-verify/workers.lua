-- workers.lua FILE OTHER: FILE (4 MiB) written with crc32c by 4 workers and
-- verified by 4; then the first MiB of FILE and OTHER verified by 4,
-- going on past errors; prints the I/Os and errors of each verification
local iomoon = require "iomoon"
local file, other = arg[1], arg[2]
iomoon.run { target = { path = file, size = "4m" }, workers = 4, bs = "4k", read = 0, bytes = "4m", verify = "crc32c" }
local r = iomoon.run { target = file, workers = 4, bs = "4k", verify = "crc32c", verify_only = true }
print(r.ios, r.errors)
r = iomoon.run { target = { file, other }, workers = 4, bs = "4k", verify = "crc32c", verify_only = true, region = "1m", on_error = "continue" }
print(r.ios, r.errors)
