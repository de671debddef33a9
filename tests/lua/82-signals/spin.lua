-- spin.lua: a short phase, then a Lua loop that never ends nor asks
-- iomoon.interrupted()
local i = require "iomoon"
i.run{engine = "sim", bs = "4k", ios = 5}
while true do end
