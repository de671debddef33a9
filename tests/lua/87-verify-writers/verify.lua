-- verify.lua FILE [RATE]: FILE verified in 64 KiB, paced at RATE reads a
-- second if given; prints the I/Os and errors
local r = require("iomoon").run { target = arg[1], bs = "64k", qd = 4, verify = "crc32c", verify_only = true,
  on_error = "continue", rate = tonumber(arg[2]) }
print(r.ios, r.errors)
