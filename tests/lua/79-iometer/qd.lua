-- qd.lua: a suite whose phase sets qd = 5000 (out of range)
return { name = "s", phases = { { engine = "sim", bs = "4k", qd = 5000, duration = "0.1s" } } }
