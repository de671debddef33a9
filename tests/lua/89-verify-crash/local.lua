-- local.lua FILE SEED: a 4 MiB file made and written at random with
-- crc32c, buffered, an fdatasync every 4 writes of a slot, until killed
require("iomoon").run { name = "write", target = { path = arg[1], size = "4m" }, bs = "4k", read = 0,
  random = 100, qd = 4, ios = 100000000, verify = "crc32c", seed = tonumber(arg[2]), fdatasync = 4,
  direct = false }
