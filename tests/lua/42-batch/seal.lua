-- seal.lua: reads a misspelt field of submit_sizes (an error, as for the
-- rest of a result)
local r = require("iomoon").run{engine = "null", qd = 4, bs = "4k", ios = 100}
print(r.reap_sizes.mean, r.submit_sizes.mena)
