-- idle.lua: 0.1 s on sim at 1 s an I/O (none completes); prints the I/Os,
-- failed and the error
local r = require("iomoon").run{target = "z.dat", engine = "sim", sim_latency = "1s", bs = "4k", duration = 0.1}
print(r.ios, r.failed, r.error)
