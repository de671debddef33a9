-- verify-half.lua FILE: all of FILE verified, going on past errors; prints
-- the I/Os and errors
local r = require("iomoon").run { target = arg[1], bs = "4k", verify = "crc32c", verify_only = true, on_error = "continue" }
print(r.ios, r.errors)
