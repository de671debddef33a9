-- write.lua URL: 8 MiB of the offset pattern written sequentially to the export
require("iomoon").run { name = "write", target = { path = arg[1], allow_write = true },
  bs = "64k", read = 0, random = 0, qd = 4, bytes = "8m", pattern = "offset" }
