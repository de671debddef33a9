-- trim-secure.lua TARGET [TRIM]: a phase of secure discards (trim_secure)
-- of 1 MiB over TARGET's first 4 MiB, TRIM percent of its I/Os trims
-- (default 100); what it reports, or the input error
local iomoon = require "iomoon"
local r = iomoon.run{ target = { path = arg[1], allow_write = true }, bs = '1m', read = 0,
  trim = tonumber(arg[2] or "100"), random = 0, bytes = '4m', region = { offset = 0, size = '4m' }, trim_secure = true }
print(r.trim.ios, r.errors)
