-- device-verify.lua DEVICE: the device verified, going on past errors;
-- prints the I/Os, errors and missing units
local r = require("iomoon").run { target = arg[1], bs = "4k", verify = "crc32c", verify_only = true, on_error = "continue" }
print(r.ios, r.errors, r.errors_by_errno.missing or 0)
