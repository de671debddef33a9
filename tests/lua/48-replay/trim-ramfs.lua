-- trim-ramfs.lua TARGET TRACE: a trace that trims replayed on a new file
-- on ramfs, which cannot punch holes (refused)
local iomoon = require "iomoon"
iomoon.run { target = { path = arg[1], size = "1m", fill = false }, direct = false,
  replay = iomoon.trace.load(arg[2]) }
