-- fill-up.lua REPORT KEEP TINY TARGET: phase "one", whose report (REPORT,
-- on the small file system TINY) is copied to KEEP; then TINY is filled up
-- and phase "two" runs, whose report cannot fit
local iomoon = require "iomoon"
local out, keep, tiny = arg[1], arg[2], arg[3]
local t = { path = arg[4], size = "1m" }
iomoon.run { name = "one", target = t, engine = "sim", bs = "4k", ios = 10 }
local f = assert(io.open(out, "rb")); local s = f:read("a"); f:close()
f = assert(io.open(keep, "wb")); f:write(s); f:close()
f = assert(io.open(tiny .. "/filler", "wb"))
while f:write(string.rep("z", 4096)) and f:flush() do end
f:close()
iomoon.run { name = "two", target = t, engine = "sim", bs = "4k", ios = 10 }
