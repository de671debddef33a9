-- foreign-state.lua FILE: FILE written with crc32c (where its state would
-- go, the test put a file that is not a state)
require("iomoon").run { target = { path = arg[1], allow_write = true }, bs = "4k", read = 0, bytes = "1m", verify = "crc32c" }
