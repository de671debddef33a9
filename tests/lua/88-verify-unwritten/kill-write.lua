-- kill-write.lua DURATION SEED: random writes with crc32c to k.dat
-- (16 MiB) for DURATION
local r = require("iomoon").run { target = { path = "k.dat", size = "16m" }, bs = "4k", read = 0, random = 100, qd = 4,
  duration = arg[1], verify = "crc32c", seed = tonumber(arg[2]) }
