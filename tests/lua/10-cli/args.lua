-- args.lua ARGS...: prints its arguments, joined by "|"
print(table.concat(arg, "|"))
