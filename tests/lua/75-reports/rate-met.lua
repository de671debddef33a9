-- rate-met.lua: a rate not met ("slow"), one met ("easy"), a closed loop
-- ("closed"), and streams of each kind ("mix")
local iomoon = require "iomoon"
iomoon.run{ name = "slow", engine = "sim", sim_latency = "10ms", qd = 1, bs = "4k", rate = 500, duration = "0.3s" }
iomoon.run{ name = "easy", engine = "sim", sim_latency = "1ms", qd = 4, bs = "4k", rate = 200, duration = "0.3s" }
iomoon.run{ name = "closed", engine = "null", bs = "4k", ios = 100 }
iomoon.run{ name = "mix", engine = "sim", sim_latency = "10ms", bs = "4k", duration = "0.3s",
  streams = { { qd = 1, rate = 500 }, { qd = 4, rate = 100 }, { qd = 1 } } }
