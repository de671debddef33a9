-- files_args.lua: the key=value arguments of a files-phase test script
-- (tests/lua/52-files/one.lua, 52-nfs/files.lua) applied to its phase:
-- files.KEY=V sets phase.files.KEY, KEY=V phase.KEY; numbers and
-- true/false become themselves, nil unsets (files.dirs=nil, to give
-- depth and width), ops=create:20,read:50 a mix. Loaded with
-- dofile(); returns apply(phase, args, from).
return function(phase, args, from)
  for i = from, #args do
    local k, v = args[i]:match("^([%w_.]+)=(.*)$")
    local f = k:match("^files%.(.*)")
    if tonumber(v) then v = tonumber(v)
    elseif v == "true" then v = true
    elseif v == "false" then v = false
    elseif v == "nil" then v = nil end
    if k == "ops" then
      local t = {}
      for name, w in v:gmatch("(%w+):(%d+)") do t[name] = tonumber(w) end
      v = t
    end
    if f then phase.files[f] = v else phase[k] = v end
  end
  return phase
end
