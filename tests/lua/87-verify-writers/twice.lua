-- twice.lua OTHER: bad input, refused. A phase writing with crc32c on
-- two.dat and OTHER, another name of the same file.
require("iomoon").run { target = { "two.dat", arg[1] }, workers = 2, bs = "4k", read = 50, random = 100, qd = 8, duration = "1s", verify = "crc32c" }
