-- plain.lua PATH: a phase without syncs or trims
require("iomoon").run{ target = arg[1], bs = "8k", ios = 50 }
