-- probe.lua FILE NEW: t:probe on FILE (not created by iomoon), a timed read,
-- then the errors of a read past the end, an unaligned direct read, a probe
-- for writing, a read on a closed probe (printed one a line); then a timed
-- write of "ab" repeated over 4096 bytes at offset 4096 of NEW, created 1 MiB
local iomoon = require "iomoon"
local t = iomoon.target { path = arg[1] }
local p = t:probe { direct = true }
local ns = p:read(8192, 4096, true)
assert(math.type(ns) == "integer" and ns > 0, "a read's time")
local function err(f) local ok, e = pcall(f); return not ok and (e.msg or tostring(e)) or "no error" end
print(err(function() p:read(t:size() - 512, 4096) end))
print(err(function() p:read(100, 4096) end))
print(err(function() t:probe { write = true } end))
p:close()
print(err(function() p:read(0, 512) end))
local n = iomoon.target { path = arg[2], size = "1m", fill = "zero" }
local w = n:probe { write = true }
assert(w:write(4096, ("ab"):rep(2048), true, true) > 0)
w:close()
