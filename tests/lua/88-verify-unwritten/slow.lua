-- slow.lua: a minute of sequential writes with crc32c to i.dat, paced at
-- 100 a second (the test interrupts it)
require("iomoon").run { target = { path = "i.dat", size = "64m" }, bs = "64k", read = 0, random = 0, rate = 100,
  duration = "60s", verify = "crc32c" }
