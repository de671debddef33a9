-- fill.lua URL: the export's first 4 MiB written with crc32c verification
require("iomoon").run { name = "fill", target = { path = arg[1], allow_write = true },
  bs = "64k", read = 0, random = 0, qd = 4, bytes = "4m", verify = "crc32c" }
