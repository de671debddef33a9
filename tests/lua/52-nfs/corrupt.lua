-- corrupt.lua URL: 512 bytes of the offset pattern written 1 KiB into the
-- unit at 1 MiB (its header left as it was), by a run that knows nothing
-- of the verification (a client of its own)
require("iomoon").run { name = "corrupt", target = { path = arg[1], allow_write = true },
  region = { offset = 1048576 + 1024, size = 512 }, bs = 512, read = 0, ios = 1, pattern = "offset" }
