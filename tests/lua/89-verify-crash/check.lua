-- check.lua TARGET [ATOMIC]: every unit classed after the crash
-- (after_crash), ATOMIC "atomic": a torn unit fails too
require("iomoon").run { name = "after the crash", target = { path = arg[1] }, bs = "4k",
  verify = "crc32c", verify_only = true, after_crash = true, atomic = arg[2] == "atomic" }
