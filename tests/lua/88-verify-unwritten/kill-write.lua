-- kill-write.lua DURATION SEED [PATH]: random writes with crc32c to PATH
-- (default k.dat; 16 MiB, made when missing) for DURATION
local r = require("iomoon").run { target = { path = arg[3] or "k.dat", size = "16m" }, bs = "4k", read = 0, random = 100, qd = 4,
  duration = arg[1], verify = "crc32c", seed = tonumber(arg[2]) }
