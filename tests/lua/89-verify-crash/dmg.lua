-- dmg.lua FILE: the first 512 KiB of a 1 MiB file an unverified phase
-- wrote before, written in order with crc32c and a flush every 8 writes;
-- the second half keeps that phase's data
require("iomoon").run { name = "write", target = arg[1], bs = "4k", read = 0, random = 0, qd = 4, ios = 128,
  verify = "crc32c", fdatasync = 8 }
