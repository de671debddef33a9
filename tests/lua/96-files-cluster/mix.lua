-- mix.lua: a Postmark-like mix of ios = 301 on every rank's own tree, then
-- its removal. arg: dir. Rank 0 prints "IOS HOSTS_IOS ERRORS"
local iomoon = require "iomoon"
local tree = { dir = arg[1], dirs = 2, files = 25, size = "1k" }
local r = iomoon.run { name = "mix", files = tree, ops = { create = 10, delete = 10, read = 40, append = 40 },
                       ios = 301, bs = "1k" }
local per = {}
for _, h in ipairs(r.hosts) do per[#per + 1] = h.ios end
print(r.ios, table.concat(per, "+"), r.errors)
iomoon.run { name = "delete", files = tree, op = "delete" }
iomoon.run { name = "rmdir", files = tree, op = "rmdir" }
