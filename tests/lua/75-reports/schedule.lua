-- schedule.lua: 0.3 s at 100 IOPS, then 0.3 s at 1000, on sim
require("iomoon").run { engine = "sim", bs = "4k", schedule = { { duration = 0.3, iops = 100 }, { duration = 0.3, iops = 1000 } } }
