-- reads.lua: 100 reads of user.db
local i = require "iomoon"
i.run{target = "user.db", bs = "4k", read = 100, ios = 100}
