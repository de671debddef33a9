-- sleep.lua: iomoon.sleep(10) (the test interrupts it), then a phase on
-- after.dat; prints how long it slept and whether it was interrupted, then
-- what the phase did
local iomoon = require "iomoon"
local t0 = iomoon.now()
iomoon.sleep(10)
print(string.format("slept %d ms, interrupted %s", (iomoon.now() - t0) // 1000000, iomoon.interrupted()))
local ok, r = pcall(iomoon.run, { name = "after", target = { path = "after.dat", size = "4m" }, bs = "4k", duration = "5s" })
print(ok and (r.interrupted and "run: interrupted result" or "run: ran") or
  (tostring(r):match("interrupted") and "run: raised interrupted" or "run: raised " .. tostring(r)))
