-- local.lua FILE SEED [dsync]: a 4 MiB file made and written at random
-- with crc32c, buffered, an fdatasync every 4 writes of a slot (dsync:
-- opened O_DSYNC instead, every write durable), until killed
local dsync = arg[3] == "dsync"
require("iomoon").run { name = "write", target = { path = arg[1], size = "4m" }, bs = "4k", read = 0,
  random = 100, qd = 4, ios = 100000000, verify = "crc32c", seed = tonumber(arg[2]),
  fdatasync = not dsync and 4 or nil, sync = dsync and "dsync" or nil, direct = false }
