-- vonly.lua: each rank writes its v.RANK with crc32c; rank 1 spoils its
-- last block; verify_only; prints the I/Os, each host's, and rank 1's errors
local iomoon = require "iomoon"
local t = { path = "v.{rank}", size = "1m" }
iomoon.run { name = "w", target = t, bs = "4k", qd = 4, verify = "crc32c", read = 0, random = 0, bytes = "2m" }
if iomoon.cluster.rank == 1 then -- spoil rank 1's last block
  local f = assert(io.open("v.1", "r+b")); f:seek("set", 1048576 - 4096); f:write(string.rep("x", 4096)); f:close()
end
local r = iomoon.run { name = "r", target = t, bs = "4k", qd = 4, verify = "crc32c", verify_only = true, on_error = "continue" }
print(r.ios, r.hosts[1].ios, r.hosts[2].ios, r.hosts[2].errors)
