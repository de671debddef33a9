-- trim.lua URL: 4 MiB trimmed from 8 MiB on
require("iomoon").run { name = "trim", target = { path = arg[1], allow_write = true, force = true },
  region = { offset = "8m", size = "4m" }, bs = "64k", read = 0, random = 0, trim = 100, qd = 2, bytes = "4m" }
