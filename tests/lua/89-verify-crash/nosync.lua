-- nosync.lua FILE: a 1 MiB file written with crc32c and no durability point
require("iomoon").run { name = "write", target = { path = arg[1], size = "1m" }, bs = "4k", read = 0,
  ios = 64, verify = "crc32c" }
