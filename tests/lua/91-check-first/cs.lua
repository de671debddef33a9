-- cs.lua: a suite whose second phase names its own target, userlog.dat
return { name = "cs", description = "d", phases = { { name = "main", bs = "4k", duration = "0.1s" },
  { name = "log", target = "userlog.dat", bs = "4k", duration = "0.1s" } } }
