-- streams.lua: a reading stream on sr.dat and a writing one on sw.dat, both
-- verifying; prints skip_unwritten of the phase and of each stream
local r = require("iomoon").run { verify = "crc32c", on_error = "continue", duration = "0.5s", streams = {
  { name = "r", target = "sr.dat", bs = "4k", read = 100, random = 0, qd = 4 },
  { name = "w", target = { path = "sw.dat", size = "16m" }, bs = "4k", read = 50, random = 100, qd = 4 } } }
print(tostring(r.verify.skip_unwritten), tostring(r.streams[1].verify.skip_unwritten),
  tostring(r.streams[2].verify.skip_unwritten))
