-- csv-full.lua CSV: 10000 rows through csv.writer, more than its file
-- system holds
local w = require("iomoon").csv.writer(arg[1])
for i = 1, 10000 do w:row { i, string.rep("y", 20) } end
w:close()
