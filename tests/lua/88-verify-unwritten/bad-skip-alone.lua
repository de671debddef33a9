-- bad-skip-alone.lua: bad input, refused: skip_unwritten without verify
require("iomoon").run { target = { path = "new2.dat", size = "1m" }, bs = "4k", read = 100, skip_unwritten = true }
