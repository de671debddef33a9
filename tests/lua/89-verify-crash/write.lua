-- write.lua URL SEED QD: random 4 KiB writes with crc32c over the whole
-- export, a flush (fdatasync) every 8 writes of a slot, one worker, until
-- the disk's power cut ends the phase
require("iomoon").run { name = "write", target = { path = arg[1], allow_write = true },
  bs = "4k", read = 0, random = 100, qd = tonumber(arg[3]), workers = 1, ios = 1000000,
  verify = "crc32c", seed = tonumber(arg[2]), fdatasync = 8 }
