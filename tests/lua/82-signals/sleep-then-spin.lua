-- sleep-then-spin.lua: iomoon.sleep(30), then 20 s of a busy loop that
-- ignores the first signal's flag (the test signals it twice)
local iomoon = require "iomoon"
iomoon.sleep(30)
local t = iomoon.now()
while iomoon.now() - t < 20e9 do end -- ignores the first signal's flag
