-- mdtest's phases over 2 workers x 4 dirs x 250 files: prints, per phase,
-- "OP OPS ERRORS" and the files' counts. arg: dir engine qd
local iomoon = require "iomoon"
local dir, engine, qd = arg[1], arg[2], tonumber(arg[3])
local tree = { dir = dir, dirs = 4, files = 250, size = "1k", allow_write = true }
for _, op in ipairs { "mkdir", "create", "stat", "read", "delete", "rmdir" } do
  local r = iomoon.run { name = op, files = tree, op = op, workers = 2, engine = engine, qd = qd }
  local o = r.ops[op]
  print(op, o.ops, o.errors, r.files.created, r.files.deleted, o.how)
end
