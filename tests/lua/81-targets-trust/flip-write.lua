-- flip-write.lua DIR: t:write and t:fsync on DIR/flip, a link that
-- DIR/flip.py (started here, its pid in DIR/flip.pid) flips between
-- iomoon's file and a foreign one; prints the writes done and refused
local iomoon = require("iomoon")
local dir = arg[1]
local t = iomoon.target{path = dir .. "/flip", create = false}
os.execute(string.format("python3 %s/flip.py %s & echo $! >%s/flip.pid", dir, dir, dir))
local wrote, refused = 0, 0
for i = 1, 1500 do
  if pcall(t.write, t, 0, string.rep("X", 4096)) then wrote = wrote + 1 else refused = refused + 1 end
  pcall(t.fsync, t)
end
print(wrote, refused)
