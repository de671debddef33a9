-- two-sizes.lua PATH: bad input, refused. Two streams name one file to be
-- created, with two sizes.
require("iomoon").run { bs = "4k", duration = 0.2, streams = {
  { target = { path = arg[1], size = "1m" } },
  { target = { path = arg[1], size = "2m" }, bs = "4k", read = 0 } } }
