-- check.lua TARGET [ATOMIC|STRICT]: every unit classed after the crash
-- (after_crash), ATOMIC "atomic": a torn unit fails too; STRICT "strict":
-- skip_unwritten = false, units never written that hold data are judged
local skip
if arg[2] == "strict" then skip = false end
require("iomoon").run { name = "after the crash", target = { path = arg[1] }, bs = "4k",
  verify = "crc32c", verify_only = true, after_crash = true, atomic = arg[2] == "atomic", skip_unwritten = skip }
