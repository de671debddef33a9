-- read.lua PATH ENGINE QD: 4000 random reads verifying the offset pattern;
-- prints the I/Os and errors
local iomoon = require "iomoon"
local path, engine, qd = arg[1], arg[2], tonumber(arg[3])
local r = iomoon.run{target = path, engine = engine, qd = qd, bs = "4k", random = 100, ios = 4000, verify = "offset"}
print(r.ios, r.errors)
