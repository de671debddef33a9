-- livefile.lua PATH: iomoon.metrics{live = PATH} from a script, then a
-- short phase on the null engine. PATH a symbolic link or a FIFO must be
-- refused: iomoon would empty what the link names, or wait for a reader.
local iomoon = require "iomoon"
iomoon.metrics { live = arg[1] }
iomoon.run { engine = "null", duration = "0.3s", bs = "4k" }
