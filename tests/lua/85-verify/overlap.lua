-- overlap.lua FILE: 1.5 s of random reads and writes at qd 32 over 32 KiB,
-- verified with crc32c, direct then buffered; prints for each whether
-- direct, the errors, and whether it did over 1000 I/Os
local iomoon = require "iomoon"
for _, direct in ipairs { true, false } do
  local r = iomoon.run { target = { path = arg[1], size = "1m" }, region = "32k", bs = "4k", qd = 32, read = 50,
    random = 100, verify = "crc32c", duration = "1.5s", direct = direct, on_error = "continue" }
  print(direct, r.errors, r.ios > 1000)
end
