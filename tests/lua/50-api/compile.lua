-- compile.lua DIR: compiles (without running) every .lua file under DIR;
-- prints how many there are, then the error of each that does not compile
local list = assert(io.popen("find '" .. arg[1] .. "' -name '*.lua' | sort"))
local n, bad = 0, {}
for path in list:lines() do
  n = n + 1
  local ok, err = loadfile(path)
  if not ok then bad[#bad + 1] = err end
end
list:close()
print(n)
for _, e in ipairs(bad) do print(e) end
