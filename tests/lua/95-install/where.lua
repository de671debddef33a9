-- where.lua: prints the folder the Lua library was loaded from
print(require("iomoon").lua_dir)
