-- big-fill.lua PATH: a phase on a new 4 GiB file, which is filled first
-- (the test interrupts the fill)
require("iomoon").run{target = {path = arg[1], size = "4g"}, bs = "4k", duration = "1s"}
