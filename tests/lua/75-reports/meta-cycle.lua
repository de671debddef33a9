-- meta-cycle.lua PATH: a phase whose meta contains itself, and has keys 1
-- and "1"
local m = { [1] = "a", ["1"] = "b" }
m.self = m
require("iomoon").run { target = { path = arg[1], size = "1m" }, engine = "sim", bs = "4k", ios = 10, meta = m }
