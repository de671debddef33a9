-- one files phase from key=value arguments after the dir: prints each
-- operation's "OP OPS ERRORS", then "errors N" and the first error
local iomoon = require "iomoon"
local phase = { files = { dir = arg[1], dirs = 2, files = 20, allow_write = true } }
dofile(arg[0]:match("^(.*)/") .. "/../files_args.lua")(phase, arg, 2)
local r = iomoon.run(phase)
local names = {}
for k in pairs(r.ops) do names[#names + 1] = k end
table.sort(names)
for _, k in ipairs(names) do print(k, r.ops[k].ops, r.ops[k].errors) end
print("total", r.ios, r.errors, r.interrupted)
print("first", r.first_error and r.first_error.message or "none")
local sum = 0
for _, iv in ipairs(r.intervals) do sum = sum + iv.ios end
print("intervals", #r.intervals, sum == r.ios and "sum=ios" or ("sum=" .. sum))
local by = {}
for k, v in pairs(r.errors_by_errno) do by[#by + 1] = k .. "=" .. v end
table.sort(by)
print("by_errno", table.concat(by, " "))
