-- meta.lua: rank 1's phase has a metatable that raises an error of its own
local iomoon = require "iomoon"
local p = { engine = "sim", bs = "4k", duration = "0.2s" }
if iomoon.cluster.rank == 1 then
  setmetatable(p, { __index = function(_, k) if k == "qd" then error("boom from a metatable") end end })
end
iomoon.run(p)
