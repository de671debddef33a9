-- maps.lua: 24 rounds of a 256 MiB g.dat written with crc32c, deleted with
-- its state; prints whether the RSS grew less than 2 MiB after round 4, and
-- by how much
local iomoon = require "iomoon"
local function rss()
  for l in io.lines("/proc/self/status") do
    local k = l:match("^VmRSS:%s+(%d+)") if k then return tonumber(k) end
  end
end
local first
for round = 1, 24 do
  local t = { path = "g.dat", size = "256m" }
  for _ = 1, 4 do iomoon.run { target = t, bs = "4k", read = 0, ios = 4, verify = "crc32c" } end
  os.remove("g.dat")
  os.execute("rm -f " .. os.getenv("IOMOON_STATE_DIR") .. "/file-*")
  if round == 4 then first = rss() end
end
print(rss() - first < 2048, rss() - first)
