-- linked.lua: one files phase on io_uring at qd 4 from key=value
-- arguments after the dir (as one.lua); prints "OP OPS ERRORS LINKED"
-- for its operation, then the first error
local iomoon = require "iomoon"
local phase = { files = { dir = arg[1], dirs = 2, files = 20, allow_write = true }, engine = "io_uring", qd = 4 }
for i = 2, #arg do
  local k, v = arg[i]:match("^([%w_.]+)=(.*)$")
  local f = k:match("^files%.(.*)")
  if tonumber(v) then v = tonumber(v) elseif v == "true" then v = true end
  if k == "ops" then v = { [v] = 1 } end
  if f then phase.files[f] = v else phase[k] = v end
end
local r = iomoon.run(phase)
local op = phase.op or next(phase.ops)
print(op, r.ops[op].ops, r.ops[op].errors, r.files.linked)
print("first", r.first_error and r.first_error.message or "none")
