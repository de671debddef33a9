-- csv-quoting.lua FORMAT-CSV WRITER-CSV: the same rows through csv.format
-- (to FORMAT-CSV) and csv.writer (to WRITER-CSV): a quote, a comma, LF, CR,
-- a control byte, numbers, nil and an empty string
local csv = require("iomoon").csv
local rows = { { "h1", "h2" }, { 'a"b', "c,d", "e\nf", "\1g\r", 42, 1.5, nil, "" } }
local f = assert(io.open(arg[1], "wb")); f:write(csv.format(rows)); f:close()
local w = csv.writer(arg[2])
for _, r in ipairs(rows) do w:row(r) end
w:close()
