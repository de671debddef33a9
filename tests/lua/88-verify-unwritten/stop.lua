-- stop.lua: t.dat verified at qd 1, stopping at the first error
require("iomoon").run { target = "t.dat", bs = "4k", qd = 1, verify = "crc32c", verify_only = true }
