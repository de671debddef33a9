-- shrink.lua PATH: an 8 MiB target truncated to 1 MiB under it; random
-- reads then come back short. Prints (stdout) whether errors were counted,
-- by errno, and the first one; then (stderr) a run going on past errors:
-- its errors, its short reads and writes, how many first errors it kept,
-- and whether they are all reads past 1 MiB, the first being first_error
local iomoon = require "iomoon"
local path = arg[1]
local t = iomoon.target{path = path, size = "8m"}
os.execute("truncate -s 1m " .. path)
local r = iomoon.run{target = t, bs = "4k", random = 100, ios = 2000, qd = 4}
print(r.errors > 0, r.errors_by_errno.short ~= nil, r.first_error.message)
local c = iomoon.run{target = t, bs = "4k", random = 100, ios = 200, qd = 4, on_error = "continue"}
local ordered = true
for _, e in ipairs(c.first_errors) do ordered = ordered and e.op == "read" and e.offset >= 1048576 end
io.stderr:write(string.format("%d %d %d %d %s\n", c.errors, c.read.errors_by_errno.short or -1,
  c.write.errors_by_errno.short or 0, #c.first_errors, tostring(ordered and c.first_errors[1].message == c.first_error.message)))
