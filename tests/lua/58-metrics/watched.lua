-- watched.lua TARGET DURATION IOPS LINGER [STREAMS]: one paced phase on
-- null ("watched"), 100 ms intervals, with two streams ("reads", "big")
-- when STREAMS is given; then LINGER more of serving (a scraper sees the end). Prints
-- "ios N" and each stream's "stream NAME N".
local iomoon = require "iomoon"
local target, duration, iops, linger, streams = arg[1], arg[2], tonumber(arg[3]), arg[4], arg[5]
local phase = { name = "watched", target = target, engine = "null", bs = "4k", duration = duration,
  interval = "100ms" }
if streams then
  phase.streams = { { name = "reads", bs = "4k", read = 100, rate = { iops = iops / 2 } },
    { name = "big", bs = "8k", read = 100, rate = { iops = iops / 2 } } }
else
  phase.rate = { iops = iops }
end
local r = iomoon.run(phase)
print("ios " .. r.ios)
for _, s in ipairs(r.streams or {}) do print("stream " .. s.name .. " " .. s.ios) end
io.stdout:flush()
iomoon.sleep(linger)
