-- verify-suite.lua: a suite of one phase reading 16 MiB back against the
-- offset pattern
return { name = "check", phases = { { name = "verify", bs = "1m", read = 100, verify = "offset", bytes = 16 << 20 } } }
