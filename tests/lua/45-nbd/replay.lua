-- replay.lua URL: writes t.iolog (200 records, writes and reads in turn, 4 KiB
-- apart) in the current directory and replays it on the export
local iomoon = require "iomoon"
local f = assert(io.open("t.iolog", "w"))
f:write("fio version 3 iolog\n0 d add\n0 d open\n")
for i = 0, 199 do f:write(string.format("%d d %s %d 4096\n", i * 500, i % 2 == 0 and "write" or "read", i * 4096)) end
f:close()
iomoon.run { name = "replay over tcp", target = { path = arg[1], allow_write = true },
  replay = iomoon.trace.load("t.iolog") }
