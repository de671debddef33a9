-- quota1.lua: a byte quota of one block (cannot be split over 2 ranks)
require("iomoon").run { engine = "sim", bs = "4k", bytes = "4k", duration = "1s" }
