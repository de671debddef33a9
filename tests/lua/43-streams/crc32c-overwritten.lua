-- crc32c-overwritten.lua PATH: bad input, refused. A stream verifies with
-- crc32c what the other stream overwrites without verification (it would
-- read false "missing" errors).
require("iomoon").run { target = { path = arg[1], size = "1m" }, duration = 0.2, streams = {
  { bs = "4k", read = 100, verify = "crc32c" },
  { bs = "4k", read = 0 } } }
