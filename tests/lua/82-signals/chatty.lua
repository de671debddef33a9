-- chatty.lua: six phases of 1 s on chatty.dat, each followed by 200 lines
-- on stdout (the test closes it)
local iomoon = require "iomoon"
for i = 1, 6 do
  local r = iomoon.run{ name = "p" .. i, target = { path = "chatty.dat", size = "16m" }, bs = "4k", duration = "1s" }
  for j = 1, 200 do print("phase", i, "line", j, r.ios) end
end
