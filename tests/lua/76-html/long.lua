-- long.lua: a 20 s phase on sim (the test interrupts it)
require("iomoon").run { name = "long", engine = "sim", bs = "4k", qd = 4, duration = "20s", interval = "100ms" }
