-- many.lua: 600 phases of one I/O on null
for i = 1, 600 do require("iomoon").run { engine = "null", bs = "4k", ios = 1 } end
