-- big.lua URL: large writes with crc32c over the export's first 64 MiB:
-- a timed 1 s phase of 1 MiB writes at QD 8 (what is in flight at its end
-- completes, no write is left half sent), then phases of a fixed count
-- capped at 20 s (a healthy export on a busy host needs a few seconds; a
-- write stalled 30-300 ms by the client's own polling cannot finish
-- them), then every unit of the 64 MiB read back against its crc32c
local iomoon = require("iomoon")
local t = { path = arg[1], allow_write = true }
local function w(name, bs, qd, ios)
  iomoon.run { name = name, target = t, region = "64m", bs = bs, read = 0, random = 0, qd = qd, ios = ios,
    duration = ios and "20s" or "1s", verify = "crc32c" }
end
w("1m qd8 1s", "1m", 8)
w("1m qd8", "1m", 8, 2048)
w("1m qd1", "1m", 1, 1024)
w("64k qd8", "64k", 8, 8192)
w("256k qd8", "256k", 8, 2048)
iomoon.run { name = "check", target = t, region = "64m", bs = "1m", qd = 8, verify = "crc32c", verify_only = true }
