-- device-write.lua DEVICE: all of the 16 MiB device written with crc32c
local r = require("iomoon").run { target = { path = arg[1], allow_write = true }, bs = "64k", read = 0, bytes = "16m", verify = "crc32c" }
assert(r.errors == 0 and not r.failed, "block device write")
