-- verify.lua PATH [skip]: verify_only over the whole file, on_error =
-- "continue" (skip_unwritten with "skip"); prints the I/Os, errors,
-- unexpected units and result.verify's counts; then the first error's kind
-- and unit; then its message
local r = require("iomoon").run { target = arg[1], bs = "4k", qd = 4, verify = "crc32c", verify_only = true,
  on_error = "continue", skip_unwritten = arg[2] == "skip" }
local v = r.verify
print(r.ios, r.errors, r.errors_by_errno.unexpected or 0, v.units_checked, v.units_unwritten, v.units_unexpected,
  v.units_skipped, v.unit_bytes, v.written_end_bytes)
print(r.first_error and r.first_error.kind or "-", r.first_error and r.first_error.unit_offset or "-")
print(r.first_error and r.first_error.message or "-")
