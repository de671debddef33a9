-- one files phase over an nfs:// dir, 2 dirs x 20 files of 4 KiB, from
-- key=value arguments after the dir (files.allow_write=true...): prints
-- "OP OPS ERRORS MISSING HOW" for each operation, then the result's
-- "engine ENGINE QD", "files CREATED DELETED BYTES_WRITTEN BYTES_READ",
-- "dir DIR" and "first FIRST_ERROR"
local iomoon = require "iomoon"
local phase = { files = { dir = arg[1], dirs = 2, files = 20, size = "4k" } }
dofile(arg[0]:match("^(.*)/") .. "/../files_args.lua")(phase, arg, 2)
local r = iomoon.run(phase)
local names = {}
for k in pairs(r.ops) do names[#names + 1] = k end
table.sort(names)
for _, k in ipairs(names) do print(k, r.ops[k].ops, r.ops[k].errors, r.ops[k].missing, r.ops[k].how) end
print("engine", r.engine, r.qd)
print("files", r.files.created, r.files.deleted, r.files.bytes, r.files.bytes_read)
print("dir", r.files.dir, r.definition.files.dir)
print("first", r.first_error and r.first_error.message or "none")
