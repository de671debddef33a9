-- sync-quota.lua DIR: the postgres WAL stream alone, 300 writes, then the
-- lsm-store log stream alone, 200 appends, on DIR/postgres.dat and
-- DIR/lsm-store.dat; prints each one's writes, syncs and sync call
local iomoon, suite = require "iomoon", require "iomoon.suite"
local dir = arg[1]
local p = suite.phases(suite.load("postgres"), { target = dir .. "/postgres.dat", time = 60 })[1]
p.streams = { p.streams[2] }
p.streams[1].ios = 300
local w = iomoon.run(p).streams[1]
print(w.write.ios, w.sync.ios, w.sync.call)
p = suite.phases(suite.load("lsm-store"), { target = dir .. "/lsm-store.dat", time = 60 })[1]
p.streams = { p.streams[1] }
p.streams[1].ios = 200
w = iomoon.run(p).streams[1]
print(w.write.ios, w.sync.ios, w.sync.call)
