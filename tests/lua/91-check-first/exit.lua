-- exit.lua: a phase of 5 I/Os, then os.exit(0)
local i = require "iomoon"
i.run{engine = "sim", bs = "4k", ios = 5}
os.exit(0)
