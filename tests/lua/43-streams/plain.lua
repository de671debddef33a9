-- plain.lua: one phase without streams
require("iomoon").run { name = "plain", engine = "sim", bs = "4k", ios = 200 }
