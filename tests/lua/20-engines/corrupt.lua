-- corrupt.lua PATH SIZE ENGINE QD: reads the whole file verifying the offset
-- pattern, going on past errors; prints the errors, the first one's offset
-- and the count of EILSEQ
local iomoon = require "iomoon"
local path, size, engine, qd = arg[1], tonumber(arg[2]), arg[3], tonumber(arg[4])
local r = iomoon.run{target = path, engine = engine, qd = qd, bs = "4k", random = 0,
  bytes = size, verify = "offset", on_error = "continue"}
print(r.errors, r.first_error.offset, r.errors_by_errno.EILSEQ)
