-- deep.lua URL: 4 KiB random writes at QD 32 with crc32c over the export's
-- first 4 MiB, then every unit read back against its crc32c (QD 32 reads)
local iomoon = require("iomoon")
local t = { path = arg[1], allow_write = true }
iomoon.run { name = "write", target = t, region = "4m", bs = "4k", read = 0, qd = 32, ios = 3000,
  verify = "crc32c" }
iomoon.run { name = "read", target = t, region = "4m", bs = "4k", qd = 32, verify = "crc32c",
  verify_only = true }
