-- hist.lua: 1e12 records of 1000 in one hist:record; prints the count,
-- mean, min, max, p99 and "fast" if it took under a second
local iomoon = require "iomoon"
local h = iomoon.hist()
local t0 = iomoon.now()
h:record(1000, 1e12)
local ms = (iomoon.now() - t0) / 1e6
print(string.format("%d %.1f %d %d %d %s", h:count(), h:mean(), h:min(), h:max(), h:percentile(99), ms < 1000 and "fast" or ms))
