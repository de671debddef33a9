-- twodirs.lua FILE A B: a verified write keeping its state in A, then a
-- check asking for B in the same run (refused), then one asking for none
-- (the run's own directory, A: accepted)
local iomoon = require "iomoon"
iomoon.run { name = "write", target = { path = arg[1], size = "1m" }, bs = "4k", read = 0, ios = 64,
  verify = "crc32c", fdatasync = 8, verify_state = arg[2] }
local ok, e = pcall(iomoon.run, { name = "b", target = arg[1], bs = "4k", verify = "crc32c", verify_only = true,
  verify_state = arg[3] })
io.stderr:write("B: ", tostring(ok), " ", tostring(e), "\n")
local r = iomoon.run { name = "none", target = arg[1], bs = "4k", verify = "crc32c", verify_only = true, after_crash = true }
io.stderr:write("none: ", r.errors, " ", r.crash.durable_ok, "\n")
