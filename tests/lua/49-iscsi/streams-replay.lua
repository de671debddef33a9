-- streams-replay.lua LUN: two streams (reads; writes paced at 400 IOPS) for
-- 1 s in 250 ms intervals; then t.iolog (150 records) written here and
-- replayed; prints the errors, whether each stream did its share, the
-- intervals, then the replay's errors, reads and writes
local iomoon = require "iomoon"
local u = arg[1]
local r = iomoon.run { target = { path = u, allow_write = true }, bs = '4k', duration = 1, interval = '250ms',
  streams = { { bs = '4k', read = 100, qd = 4, region = { offset = '16m', size = '16m' } },
    { bs = '4k', read = 0, qd = 2, rate = 400, region = { offset = '32m', size = '16m' } } } }
local f = assert(io.open('t.iolog', 'w'))
f:write('fio version 3 iolog\n0 x add\n0 x open\n')
for i = 1, 150 do
  f:write(string.format('%d x %s %d 4096\n', i * 1000, i % 3 == 0 and 'write' or 'read', (i * 7919 % 4000) * 4096))
end
f:write('150000 x close\n')
f:close()
local r2 = iomoon.run { target = { path = u, allow_write = true }, replay = iomoon.trace.load('t.iolog') }
print(r.errors, r.streams[1].ios > 100, r.streams[2].ios >= 360 and r.streams[2].ios <= 410, #r.intervals,
  r2.errors, r2.read.ios, r2.write.ios)
