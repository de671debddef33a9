-- five.lua: a suite of five phases of 1 s on the sim engine (p1 to p5)
return { name = "five", phases = function()
  local t = {}
  for i = 1, 5 do t[i] = { name = "p" .. i, engine = "sim", bs = "4k", duration = "1s" } end
  return t
end }
