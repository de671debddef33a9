-- iomoon.errors: raise the same error objects the core raises, from Lua.
-- input(...) is bad input (the command line exits 2), run(...) a failed
-- run (exit 1); both take string.format's arguments and print their
-- message with tostring().
local registry = debug.getregistry()

local errors = {}

function errors.input(fmt, ...)
  error(setmetatable({ where = "", msg = string.format(fmt, ...) }, registry["iomoon.input_error"]), 0)
end

function errors.run(fmt, ...)
  error(setmetatable({ where = "", msg = string.format(fmt, ...) }, registry["iomoon.run_error"]), 0)
end

return errors
