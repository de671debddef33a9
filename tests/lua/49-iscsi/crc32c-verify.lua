-- crc32c-verify.lua LUN: the 2 MiB at 8 MiB verified, going on past errors;
-- prints the reads, errors and corrupt units
local iomoon = require "iomoon"
local r = iomoon.run{ target = arg[1], bs = '16k', qd = 4, region = { offset = '8m', size = '2m' },
  verify = 'crc32c', verify_only = true, on_error = 'continue' }
print(r.read.ios, r.errors, r.errors_by_errno.corrupt)
