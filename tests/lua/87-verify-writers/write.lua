-- write.lua FILE [SECONDS]: SECONDS (3) of random writes with crc32c over a
-- new 64 MiB FILE, by 2 workers; prints "wrote" and the errors
local r = require("iomoon").run { target = { path = arg[1], size = "64m" }, bs = "4k", read = 0, random = 100,
  qd = 8, workers = 2, duration = tonumber(arg[2]) or 3, verify = "crc32c" }
print("wrote", r.errors)
