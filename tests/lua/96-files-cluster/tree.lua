-- tree.lua: files phases on every rank, 1 worker x 2 dirs x 25 files.
-- arg: dir shared(true|false) engine qd op[,op...]. Each rank writes, per
-- phase, "OP OPS ERRORS CREATED DELETED RANKS OPS_RANK0+OPS_RANK1 FIRST<=LAST"
-- to out.RANK and the result of the last phase to res.RANK.json.
local iomoon = require "iomoon"
local json = require "iomoon.json"
local dir, shared, engine, qd = arg[1], arg[2] == "true", arg[3], tonumber(arg[4])
local rank = iomoon.cluster.rank
local f = assert(io.open(string.format("out.%d", rank), "w"))
local r
for op in arg[5]:gmatch("[^,]+") do
  r = iomoon.run { name = op, files = { dir = dir, dirs = 2, files = 25, size = "1k", shared = shared },
                   op = op, workers = 1, engine = engine, qd = qd }
  local per = {}
  for _, h in ipairs(r.hosts) do per[#per + 1] = h.ios end
  f:write(op, " ", r.ops[op].ops, " ", r.ops[op].errors, " ", r.files.created, " ", r.files.deleted, " ",
          r.cluster.ranks, " ", table.concat(per, "+"), " ",
          tostring(r.files.first_done_s <= r.files.last_done_s and r.files.last_done_s <= r.seconds), "\n")
end
f:close()
f = assert(io.open(string.format("res.%d.json", rank), "w"))
f:write(json.encode(r))
f:close()
