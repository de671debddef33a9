-- bug.lua TARGET: fails, naming TARGET in its message
error("cannot reach " .. arg[1])
