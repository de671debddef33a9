-- csv.lua: phases whose CSV rows say what they asked: a mix of two specs
-- (60 % 4k 70 % read at random, 40 % 8k and 64k sequential writes), an
-- access spec given by name (meta.spec), a read-only and a write-only phase
local iomoon = require "iomoon"
iomoon.run { name = "mix", engine = "sim", ios = 500, mix = {
  { bs = "4k", read = 70, random = 100, weight = 60 },
  { bs = { { "8k", 50 }, { "64k", 50 } }, read = 0, random = 0, weight = 40 },
} }
iomoon.run { name = "exchange", engine = "sim", ios = 500, bs = "8k", read = 55, random = 80,
  meta = { spec = "8k_55%Read_80%Random" } }
iomoon.run { name = "reads", engine = "sim", ios = 500, bs = "4k", read = 100 }
iomoon.run { name = "writes", engine = "sim", ios = 500, bs = "1m", read = 0, random = 0 }
