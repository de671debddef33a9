-- trim-thick.lua LUN: trims asked of a LUN that does not offer them (refused)
local iomoon = require "iomoon"
iomoon.run{ target = { path = arg[1], allow_write = true }, bs = '64k', read = 0, trim = 100,
  region = '1m', bytes = '1m' }
