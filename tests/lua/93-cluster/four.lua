-- four.lua: a phase of two streams on {rank} and {host} targets; each
-- rank writes its figures to four.RANK.json
local iomoon = require "iomoon"
local json = require "iomoon.json"
local rank = iomoon.cluster.rank
local r = iomoon.run { name = "four", engine = "psync", duration = "1s", interval = "0.2s",
  streams = {
    { name = "reads", target = { path = "data.{rank}", size = "4m" }, bs = "4k", random = 100 },
    { name = "writes", target = { path = "w.{host}.{rank}", size = "2m", allow_write = true }, bs = "8k", read = 0 },
  } }
local f = assert(io.open(string.format("four.%d.json", rank), "w"))
f:write(json.encode({ ios = r.ios, hosts = #r.hosts, s1 = r.streams[1].ios, s2 = r.streams[2].ios,
  iv = #r.intervals, ivs = (function() local n = 0 for _, i in ipairs(r.intervals) do n = n + i.ios end return n end)(),
  s1iv = (function() local n = 0 for _, i in ipairs(r.streams[1].intervals) do n = n + i.ios end return n end)(),
  hsum = (function() local n = 0 for _, h in ipairs(r.hosts) do n = n + h.ios end return n end)(),
  target = r.streams[1].target }))
f:close()
