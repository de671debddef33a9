-- buffered-verify.lua: mnt/f.dat verified buffered, going on past errors;
-- prints the I/Os and errors
local r = require("iomoon").run { target = "mnt/f.dat", bs = "4k", direct = false, verify = "crc32c", verify_only = true, on_error = "continue" }
print(r.ios, r.errors)
