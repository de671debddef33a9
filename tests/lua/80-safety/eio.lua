-- eio.lua DEVICE: 16 MiB written to a loop device whose backing file's
-- file system is full, going on past errors; prints whether errors were
-- counted, whether as EIO or ENOSPC, and the first one
local r = require("iomoon").run{target = {path = arg[1], allow_write = true}, bs = "64k", read = 0, random = 0,
  bytes = "16m", qd = 4, on_error = "continue"}
-- the loop driver passes the backing store's error up: EIO on older
-- kernels, ENOSPC on this one
print(r.errors > 0, (r.errors_by_errno.EIO or r.errors_by_errno.ENOSPC) ~= nil, r.first_error.message)
