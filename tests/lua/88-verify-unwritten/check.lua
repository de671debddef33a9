-- check.lua: phase "check" verifies t.dat
require("iomoon").run { name = "check", target = "t.dat", bs = "4k", qd = 4, verify = "crc32c", verify_only = true }
