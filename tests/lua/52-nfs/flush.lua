-- flush.lua URL: 100 writes, an fsync (an NFS COMMIT) every 10
require("iomoon").run { name = "flush", target = { path = arg[1] },
  bs = "4k", read = 0, qd = 2, ios = 100, fsync = 10 }
