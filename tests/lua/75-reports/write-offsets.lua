-- write-offsets.lua PATH: 1 MiB of the offset pattern written in 64 KiB
require("iomoon").run { target = { path = arg[1], size = "1m" }, bs = "64k", read = 0, pattern = "offset", bytes = 1 << 20 }
