-- files.lua READ-ONLY-FILE WRITTEN-FILE: a reader on one file beside a
-- writer on another, for 0.5 s
require("iomoon").run { name = "files", duration = 0.5, qd = 4, streams = {
  { name = "reads", target = arg[1], bs = "4k", read = 100, random = 100 },
  { name = "writes", target = { path = arg[2], allow_write = true }, bs = "4k", read = 0, random = 100 } } }
