-- bad-skip-yes.lua: bad input, refused: skip_unwritten = "yes"
require("iomoon").run { target = { path = "new1.dat", size = "1m" }, bs = "4k", read = 100, skip_unwritten = "yes", verify = "crc32c" }
