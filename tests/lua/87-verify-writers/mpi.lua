-- mpi.lua DEVICE [STATE]: under mpirun, every rank on the one device: a slice
-- smaller than a block (refused: prints "tiny", false and the message);
-- the whole device written with crc32c ("fill", the bytes and errors over
-- all ranks); then verified ("check", the bytes, errors and each host's
-- bytes). STATE: the phases' verify_state ({rank} in it expanded)
local iomoon = require "iomoon"
local vs = arg[2]
local t = { path = arg[1], allow_write = true }
-- a slice smaller than a block: refused on every rank, naming the rule
local ok, e = pcall(iomoon.run, { name = "tiny", target = t, region = { offset = 0, size = "1m" }, bs = "1m",
  read = 0, ios = 2, verify = "crc32c", verify_state = vs })
print("tiny", ok, ok and "ran" or e.msg)
local r = iomoon.run { name = "fill", target = t, bs = "64k", read = 0, random = 0, bytes = "64m", qd = 4,
  workers = 2, verify = "crc32c", verify_state = vs }
print("fill", r.bytes, r.errors)
r = iomoon.run { name = "check", target = arg[1], bs = "64k", qd = 4, verify = "crc32c", verify_only = true,
  on_error = "continue", verify_state = vs }
print("check", r.bytes, r.errors, r.hosts[1].bytes, r.hosts[2].bytes)
