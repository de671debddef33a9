-- truncated.lua PATH: 3 s of random reads on PATH, going on past errors
-- (the test truncates the file under it)
require("iomoon").run{target = arg[1], bs = "4k", random = 100, qd = 4, duration = "3s", on_error = "continue"}
