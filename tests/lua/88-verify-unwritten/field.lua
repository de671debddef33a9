-- field.lua: prints result.verify of a phase that does not verify
local r = require("iomoon").run { target = "t.dat", bs = "4k", read = 100, ios = 10 }
print(r.verify)
