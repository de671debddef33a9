-- plain.lua: one phase without streams
require("iomoon").run { name = "plain", engine = "sim", bs = "4k", duration = 0.1 }
