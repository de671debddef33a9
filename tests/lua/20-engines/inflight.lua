-- inflight.lua DEVICE ENGINE: 1.5 s of random reads at qd 16
require("iomoon").run{target = arg[1], engine = arg[2], qd = 16, bs = "4k", random = 100, duration = "1.5s"}
