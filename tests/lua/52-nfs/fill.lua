-- fill.lua URL: the file's first 2 MiB written with crc32c verification
require("iomoon").run { name = "fill", target = { path = arg[1], size = "2m" },
  bs = "64k", read = 0, random = 0, qd = 4, bytes = "2m", verify = "crc32c" }
