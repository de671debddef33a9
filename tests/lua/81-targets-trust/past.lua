-- past.lua PATH: four 4 KiB writes past the first 64 KiB of PATH, so that
-- what lies at byte 1024 stays
require("iomoon").run { name = "w", target = { path = arg[1] }, region = { offset = "64k", size = "64k" },
                        read = 0, bs = "4k", ios = 4 }
