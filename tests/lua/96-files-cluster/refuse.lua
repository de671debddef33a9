-- refuse.lua: a quota smaller than the ranks (refused). arg: dir
local iomoon = require "iomoon"
iomoon.run { files = { dir = arg[1], dirs = 2, files = 25 }, op = "create", ios = 1 }
