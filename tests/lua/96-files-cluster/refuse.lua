-- refuse.lua: phases refused under 2 ranks. arg: dir case, case "ios": a
-- quota smaller than the ranks; "depth": a shared tree's mkdir at depth 2;
-- "dir": rank 1's dir missing (rank 0's is there)
local iomoon = require "iomoon"
if arg[2] == "dir" then
  local dir = iomoon.cluster.rank == 1 and arg[1] .. "/missing" or arg[1]
  iomoon.run { files = { dir = dir, dirs = 2, files = 25 }, op = "create" }
elseif arg[2] == "ios" then
  iomoon.run { files = { dir = arg[1], dirs = 2, files = 25 }, op = "create", ios = 1 }
else
  iomoon.run { files = { dir = arg[1], depth = 2, width = 2, files = 25, shared = true }, op = "mkdir" }
end
