-- dsync.lua URL: 20 random 4 KiB writes with sync = "dsync": on an
-- export, each a write with FUA
require("iomoon").run { name = "dsync", target = { path = arg[1], allow_write = true }, bs = "4k", read = 0,
  ios = 20, sync = "dsync" }
