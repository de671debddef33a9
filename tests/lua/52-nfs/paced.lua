-- paced.lua URL: a 70/30 mix of 4k and 64k at 500 IOPS, open loop, 1 s
require("iomoon").run { name = "paced", target = { path = arg[1] }, duration = "1s", qd = 8,
  mix = { { bs = "4k", read = 70, random = 100, weight = 80 }, { bs = "64k", read = 100, random = 0, weight = 20 } },
  rate = { iops = 500 } }
