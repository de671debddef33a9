-- verify.lua FILE: FILE verified against its crc32c, going on past errors;
-- prints the I/Os, errors, missing, corrupt, lost and misdirected writes,
-- then the first error's message
local r = require("iomoon").run { target = arg[1], bs = "4k", qd = 4, verify = "crc32c", verify_only = true, on_error = "continue" }
local e = r.errors_by_errno
print(r.ios, r.errors, e.missing or 0, e.corrupt or 0, e.lost_write or 0, e.misdirected or 0)
print(r.first_error and r.first_error.message or "")
