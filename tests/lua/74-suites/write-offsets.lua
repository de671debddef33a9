-- write-offsets.lua PATH: 16 MiB of the offset pattern written in 1 MiB blocks
require("iomoon").run{target = arg[1], bs = "1m", read = 0, pattern = "offset", bytes = 16 << 20}
