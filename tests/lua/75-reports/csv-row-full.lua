-- csv-row-full.lua DIR: rows through csv.writer to DIR/w.csv until one
-- fails; prints the row's error, how many temporary files are left in DIR,
-- and what close returns
local dir = arg[1]
local w = require("iomoon").csv.writer(dir .. "/w.csv")
local ok, e = pcall(function() for i = 1, 10000 do w:row { i, string.rep("y", 20) } end end)
print("row:", ok, tostring(e))
print("temporaries:", io.popen("ls -A '" .. dir .. "' | grep -c tmp-"):read("l"))
print("close:", pcall(w.close, w))
