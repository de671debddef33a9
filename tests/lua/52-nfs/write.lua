-- write.lua URL: 1 MiB of the offset pattern written sequentially to a new
-- 2 MiB file of the export (made by iomoon, so no allow_write)
require("iomoon").run { name = "write", target = { path = arg[1], size = "2m" },
  bs = "64k", read = 0, random = 0, qd = 4, bytes = "1m", pattern = "offset" }
