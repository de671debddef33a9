-- write.lua FILE: a new 4 MiB FILE written sequentially with crc32c;
-- prints "w", the I/Os, errors and whether it failed
local r = require("iomoon").run { target = { path = arg[1], size = "4m" }, bs = "4k", read = 0, random = 0,
  bytes = "4m", verify = "crc32c" }
print("w", r.ios, r.errors, r.failed)
