-- misdirected.lua FILE: verifies block 400 of FILE; prints the error's message
local r = require("iomoon").run { target = arg[1], bs = "4k", verify = "crc32c", verify_only = true, region = { offset = 400 * 4096, size = 4096 } }
print(r.first_error.message)
