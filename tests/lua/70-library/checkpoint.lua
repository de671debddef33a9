-- checkpoint.lua PATH [SIZE]: the postgres suite's phase over 1 s in 0.1 s
-- intervals; prints the checkpoint stream's intervals, its I/Os in the first
-- two, in the 7th, and whether it did over 100 in the 4th and 5th, and in
-- the 9th and 10th
local iomoon, suite = require "iomoon", require "iomoon.suite"
local p = suite.phases(suite.load("postgres"), { target = { path = arg[1], size = arg[2] }, time = 1 })[1]
p.interval = 0.1
local iv = iomoon.run(p).streams[3].intervals
local n = function(i) return iv[i] and iv[i].ios or -1 end
print(#iv, n(1) + n(2), n(7), n(4) + n(5) > 100, n(9) + n(10) > 100)
