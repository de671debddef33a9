-- verify.lua FILE: FILE verified, going on past errors; prints the I/Os,
-- errors, missing units, lost writes and foreign units
local r = require("iomoon").run { target = arg[1], bs = "4k", verify = "crc32c", verify_only = true, on_error = "continue" }
local e = r.errors_by_errno
print(r.ios, r.errors, e.missing or 0, e.lost_write or 0, e.foreign or 0)
