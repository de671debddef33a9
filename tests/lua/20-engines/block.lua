-- block.lua DEVICE: prints the device's kind, size and sector; then whether
-- a write without allow_write was accepted and the error; then the I/Os and
-- errors of writes with allow_write
local iomoon = require "iomoon"
local t = iomoon.target{path = arg[1]}
print(t:kind(), t:size(), t:sector())
local ok, err = pcall(iomoon.run, {target = t, bs = "4k", read = 0, ios = 10})
print(ok, tostring(err))
local w = iomoon.target{path = arg[1], allow_write = true}
local r = iomoon.run{target = w, bs = "4k", read = 0, random = 100, ios = 100, qd = 4}
print(r.ios, r.errors)
