-- trim.lua URL: trims, which NFS through libnfs cannot do
require("iomoon").run { name = "trim", target = { path = arg[1] },
  bs = "64k", read = 0, random = 0, trim = 100, qd = 2, bytes = "1m" }
