-- two-targets.lua PATH1 PATH2: phase "two" on two files of 1 MiB
require("iomoon").run { name = "two", engine = "psync", target = { { path = arg[1], size = "1m" }, { path = arg[2], size = "1m" } }, bs = "4k", duration = "0.1s" }
