-- write.lua PATH [FILL]: a 64 MiB file made by iomoon (FILL "false" for
-- holes, "zero" for zeros, else its fill), its first 8 MiB written with
-- verification
local fill = arg[2] == "false" and false or arg[2] == "zero" and "zero" or true
local r = require("iomoon").run { target = { path = arg[1], size = "64m", fill = fill }, bs = "64k", read = 0,
  random = 0, bytes = "8m", qd = 4, verify = "crc32c" }
assert(r.errors == 0 and r.bytes == 8 << 20, "the write pass")
