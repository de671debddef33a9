-- enospc.lua PATH: 16 MiB written, buffered, to a new file on a file system
-- that holds less, going on past errors; prints whether errors were
-- counted, whether as ENOSPC, and the first one
local r = require("iomoon").run{target = {path = arg[1], size = "16m", fill = false},
  bs = "1m", read = 0, direct = false, bytes = "16m", on_error = "continue"}
print(r.errors > 0, r.errors_by_errno.ENOSPC ~= nil, r.first_error.message)
