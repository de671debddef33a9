-- args.lua ARGS...: prints its path, its first two arguments, and how many
-- it was given (as ...)
print(arg[0], arg[1], arg[2], select("#", ...))
