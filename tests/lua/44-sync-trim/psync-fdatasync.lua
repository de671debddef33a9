-- psync-fdatasync.lua PATH: 90 buffered psync writes, an fdatasync every 3
require("iomoon").run{ engine = "psync", target = { path = arg[1], size = "4m" }, bs = "4k", read = 0,
  ios = 90, fdatasync = 3, direct = false }
