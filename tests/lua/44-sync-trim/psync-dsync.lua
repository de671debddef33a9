-- psync-dsync.lua PATH: 10 buffered psync writes to a target opened O_DSYNC
require("iomoon").run{ engine = "psync", target = { path = arg[1], size = "1m" }, bs = "4k", read = 0,
  ios = 10, sync = "dsync", direct = false }
