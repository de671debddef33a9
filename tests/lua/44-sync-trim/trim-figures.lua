-- trim-figures.lua: prints a trim-only phase's failed, ios, trim ios, bytes
-- and trim bytes; then whether a half-trim phase's intervals count all its
-- I/Os and its trims; then whether a phase's intervals are its streams'
-- summed, one by one
local iomoon = require "iomoon"
local r = iomoon.run{ engine = 'null', mix = { { bs = '4k', read = 0, trim = 100 } }, ios = 1000 }
print(r.failed, r.ios, r.trim.ios, r.bytes, r.trim.bytes)
r = iomoon.run{ engine = 'sim', mix = { { bs = '4k', read = 0, trim = 50 } }, ios = 4000, interval = '50ms', qd = 8 }
local n, t = 0, 0
for _, iv in ipairs(r.intervals) do n = n + iv.ios; t = t + iv.trim_iops * iv.len_s end
print(n == r.ios, math.abs(t - r.trim.ios) < 1)
r = iomoon.run{ engine = 'sim', duration = '0.5s', interval = '50ms', streams = { { bs = '4k', qd = 8 }, { bs = '4k', think = '1ms' } } }
local same = #r.intervals == #r.streams[1].intervals and #r.intervals == #r.streams[2].intervals
for i, iv in ipairs(r.intervals) do same = same and iv.ios == r.streams[1].intervals[i].ios + r.streams[2].intervals[i].ios end
print(same)
