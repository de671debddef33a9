-- phase-on.lua PATH [table]: a short phase on PATH, given as a path, or as
-- a target's option table when the second argument is "table"
local target = arg[2] == "table" and {path = arg[1]} or arg[1]
require("iomoon").run{target = target, bs = "4k", duration = "0.1s"}
