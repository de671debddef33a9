-- durable-write.lua FILE: FILE (4 MiB, made if need be) written whole,
-- sequentially, with crc32c and an fdatasync every 8 writes: a
-- durability record to judge a crash by
require("iomoon").run { target = { path = arg[1], size = "4m" }, bs = "4k", read = 0, random = 0, bytes = "4m",
  qd = 4, verify = "crc32c", fdatasync = 8 }
