-- load.lua TRACE: loads the trace (a malformed one fails, naming its line)
require("iomoon").trace.load(arg[1])
