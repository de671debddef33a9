-- write.lua FILE: FILE (16 MiB) written with crc32c
local r = require("iomoon").run { target = { path = arg[1], size = "16m" }, bs = "64k", read = 0, bytes = "16m", qd = 4, verify = "crc32c" }
assert(r.errors == 0 and r.bytes == 16 << 20, "write pass")
