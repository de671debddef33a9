-- alike.lua: two phases one after the other, named "p\255" and "p\254"
-- (names that read alike wherever shown: U+FFFD for the byte that is not
-- UTF-8), on the null engine. Prints nothing; the textfile
-- (--metrics-file) holds their series.
local iomoon = require "iomoon"
for _, name in ipairs { "p\255", "p\254" } do
  iomoon.run { name = name, engine = "null", duration = "0.3s", bs = "4k" }
end
