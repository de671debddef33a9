-- think_bare.lua DELAY [string]: two short sim phases ("p1", "p2") paced by
-- IOMeter's burst and delay (think = {burst = 2, delay = DELAY}; a DELAY
-- that reads as a number is given as one, unless "string" follows), each
-- checked with iomoon.check before it runs, as a suite does. Prints the
-- I/Os of each.
local iomoon = require "iomoon"
local delay = arg[2] == "string" and arg[1] or tonumber(arg[1]) or arg[1]
for _, name in ipairs { "p1", "p2" } do
  local phase = { name = name, engine = "sim", bs = "4k", duration = "50ms", think = { burst = 2, delay = delay } }
  iomoon.check(phase)
  print(name, iomoon.run(phase).ios)
end
