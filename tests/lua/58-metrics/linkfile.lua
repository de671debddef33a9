-- linkfile.lua FILE: iomoon.metrics{file = FILE} from a script, then a
-- short phase on the null engine. FILE a symbolic link (or /dev/stdout)
-- must be refused: the textfile is renamed over its path.
local iomoon = require "iomoon"
iomoon.metrics { file = arg[1] }
iomoon.run { engine = "null", duration = "0.3s", bs = "4k" }
