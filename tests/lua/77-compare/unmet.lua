-- unmet.lua: phase p1 paced at a rate sim at 1 ms cannot meet
require("iomoon").run { name = "p1", engine = "sim", sim_latency = "1ms", bs = "4k", duration = "0.2s", rate = 5000 }
