-- lists.lua: prints what iomoon.check says of phases with holes in a bs
-- list, a mix and a schedule, bytes below one block, and two misspelt
-- fields (one line each)
local iomoon = require "iomoon"
local function msg(p) local ok, e = pcall(iomoon.check, p); return ok and "accepted" or tostring(e.msg) end
print(msg{target = "z.dat", bs = {[1] = "4k", [3] = "8k"}})
print(msg{target = "z.dat", mix = {{bs = "4k"}, nil, {bs = "8k"}}})
print(msg{target = "z.dat", bs = "4k", schedule = {[1] = {duration = 1, iops = 5}, [3] = {duration = 1, iops = 5}}})
print(msg{target = "z.dat", bs = "4k", bytes = 1})
print(msg{target = "z.dat", bs = "4k", qdepth = 2})
print(msg{target = "z.dat", bs = "4k", duraton = 2})
