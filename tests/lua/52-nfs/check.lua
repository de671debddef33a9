-- check.lua URL: the file's first 2 MiB read back against their crc32c,
-- going on past errors
require("iomoon").run { name = "check", target = { path = arg[1] }, region = "2m",
  bs = "64k", verify = "crc32c", verify_only = true, on_error = "continue" }
