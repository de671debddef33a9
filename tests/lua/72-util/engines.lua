-- engines.lua: prints "auto" and the core's engines, joined by "|" as the
-- usage text lists them
local n = { "auto" }
for _, e in ipairs((require "iomoon".engines())) do n[#n + 1] = e.name end
print(table.concat(n, "|"))
