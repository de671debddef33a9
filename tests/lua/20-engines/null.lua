-- null.lua PATH: 100000 writes on the null engine; prints the I/Os counted
-- and the engine
local r = require("iomoon").run{target = arg[1], engine = "null", qd = 32, bs = "4k", read = 0, random = 100, ios = 100000}
print(r.ios, r.engine)
