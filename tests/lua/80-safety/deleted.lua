-- deleted.lua PATH: 1.5 s of random reads on PATH (the test deletes the
-- file under it)
require("iomoon").run{target = arg[1], bs = "4k", random = 100, qd = 4, duration = "1.5s"}
