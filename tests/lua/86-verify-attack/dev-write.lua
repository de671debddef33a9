-- dev-write.lua DEVICE [STATE_DIR]: 1000 random 4k writes with crc32c and
-- an fdatasync every 8 over the first 16 MiB of DEVICE (its state in
-- STATE_DIR when given)
require("iomoon").run { target = { path = arg[1], allow_write = true }, bs = "4k", read = 0, ios = 1000, qd = 4,
  verify = "crc32c", fdatasync = 8, region = "16m", verify_state = arg[2] }
