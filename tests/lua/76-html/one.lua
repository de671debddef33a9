-- one.lua: one phase of two streams, whose name holds markup and the end of
-- a script block
local iomoon = require "iomoon"
iomoon.run { name = "one </script><!-- \"x\" & <b>y</b>", engine = "sim", bs = "4k", duration = "0.3s",
  interval = "50ms", streams = { { name = "s1", qd = 2 }, { name = "s2", qd = 8 } } }
