-- hplus.lua PATH: t:write puts "H+" at byte 1024 of PATH, the two bytes
-- libblkid's hfsplus probe looks for
local t = require("iomoon").target { path = arg[1] }
t:write(1024, "H+")
