-- hplus.lua PATH: 11,080 writes with verification to the first 4 KiB of a
-- new 1 MiB file PATH, one at a time: the last leaves its generation,
-- 0x2b48, at byte 1024 (its third sector's tag), "H+" to libblkid
require("iomoon").run { name = "h", target = { path = arg[1], size = "1m" }, region = "4k", bs = "4k", read = 0,
                        random = 0, qd = 1, ios = 11080, verify = "crc32c" }
