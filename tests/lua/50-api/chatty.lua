-- chatty.lua PATH: prints a line, then runs a short phase on PATH
print("hello")
require("iomoon").run{target = {path = arg[1], size = "4m"}, bs = "4k", ios = 100}
