-- latency.lua LATENCY: phase "p" on sim at that latency, for compare
require("iomoon").run { name = "p", engine = "sim", sim_latency = arg[1], bs = "4k", qd = 2, duration = "0.3s", interval = "0.1s" }
