-- iomoon.json: a small JSON encoder for result tables.
--
-- Tables with keys 1..n are arrays, other tables objects with sorted keys
-- (so output is stable and diffable). Userdata and functions are left out:
-- a result's histogram is not part of its JSON form. NaN and infinities,
-- which JSON cannot hold, become null. An empty table is an array unless
-- its metatable says __json = "object" (as the core's maps do).

local json = {}

local escapes = {
  ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f',
  ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t',
}

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function is_array(t)
  local n = #t
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local encode

local function encode_table(t, out, indent, depth)
  local pad, pad_in = "", ""
  if indent then
    pad = "\n" .. string.rep(indent, depth)
    pad_in = "\n" .. string.rep(indent, depth + 1)
  end
  local sep = indent and ": " or ":"
  local mt = getmetatable(t)
  local object = mt and mt.__json == "object"
  if not object and is_array(t) then
    if #t == 0 then out[#out + 1] = "[]"; return end
    out[#out + 1] = "["
    for i = 1, #t do
      if i > 1 then out[#out + 1] = "," end
      out[#out + 1] = pad_in
      encode(t[i], out, indent, depth + 1)
    end
    out[#out + 1] = pad .. "]"
    return
  end
  local keys = {}
  for k, v in pairs(t) do
    local tv = type(v)
    if tv ~= "userdata" and tv ~= "function" and tv ~= "thread" then
      keys[#keys + 1] = tostring(k)
    end
  end
  table.sort(keys)
  out[#out + 1] = "{"
  for i, k in ipairs(keys) do
    if i > 1 then out[#out + 1] = "," end
    out[#out + 1] = pad_in .. encode_string(k) .. sep
    local v = t[k]
    if v == nil then v = t[tonumber(k)] end
    encode(v, out, indent, depth + 1)
  end
  out[#out + 1] = (#keys > 0 and pad or "") .. "}"
end

encode = function(v, out, indent, depth)
  local tv = type(v)
  if tv == "table" then
    encode_table(v, out, indent, depth)
  elseif tv == "string" then
    out[#out + 1] = encode_string(v)
  elseif tv == "number" then
    if math.type(v) == "integer" then
      out[#out + 1] = string.format("%d", v)
    elseif v ~= v or v == math.huge or v == -math.huge then
      out[#out + 1] = "null"
    else
      out[#out + 1] = string.format("%.17g", v)
    end
  elseif tv == "boolean" then
    out[#out + 1] = tostring(v)
  else
    out[#out + 1] = "null"
  end
end

--- Encode a value as JSON; `indent` (e.g. "  ") pretty-prints.
function json.encode(v, indent)
  local out = {}
  encode(v, out, indent, 0)
  return table.concat(out)
end

return json
