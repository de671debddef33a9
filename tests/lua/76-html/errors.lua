-- errors.lua PATH: a write with crc32c, then a verify that finds the block
-- corrupted behind its back ("verify"), a rate not met ("paced"), and a
-- phase that completes no I/O ("nothing")
local iomoon = require "iomoon"
local t = { path = arg[1], size = "1m" }
iomoon.run { name = "write", target = t, bs = "64k", read = 0, bytes = "1m", qd = 4, verify = "crc32c" }
local f = assert(io.open(arg[1], "r+b")); f:seek("set", 100 * 4096 + 10); f:write("garbage!"); f:close()
iomoon.run { name = "verify", target = t, bs = "4k", qd = 1, verify = "crc32c", verify_only = true, on_error = "continue" }
iomoon.run { name = "paced", engine = "sim", sim_latency = "1ms", bs = "4k", qd = 1, rate = 5000, duration = "0.3s" }
iomoon.run { name = "nothing", engine = "sim", sim_latency = "5s", bs = "4k", duration = "0.3s", interval = "100ms" }
