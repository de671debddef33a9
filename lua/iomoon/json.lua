-- iomoon.json: a small JSON encoder for result tables.
--
-- Whatever a result or a script's `meta` holds, the output is one valid
-- JSON text (RFC 8259) and encoding does not raise:
-- - A table whose keys are exactly 1..n is an array; any other table is an
--   object with string keys, sorted (so output is stable and diffable). An
--   empty table is an array unless its metatable says __json = "object" (as
--   the core's maps do).
-- - Keys are their tostring(). A non-string key whose name a string key of
--   the same table already has (meta = {[1] = "a", ["1"] = "b"}) is written
--   as "1 (number)" (and a further "#2", "#3" while still taken): a key is
--   never written twice.
-- - Strings are written as UTF-8. Valid UTF-8 passes unchanged; each byte
--   that is not part of valid UTF-8 (overlong forms and surrogates
--   included) becomes U+FFFD, the replacement character. Control characters
--   are escaped.
-- - A table met again inside itself (a cycle) is written as the string
--   "<cycle>"; nesting deeper than 100 levels as "<too deep>". A table
--   referred to twice but not inside itself is written both times.
-- - NaN and infinities, which JSON cannot hold, become null. Userdata,
--   functions and threads are left out of objects and are null in arrays: a
--   result's histogram is not part of its JSON form.

local json = {}

local MAX_DEPTH = 100

local escapes = {
  ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f',
  ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t',
}

-- s with every byte that is not part of valid UTF-8 replaced by U+FFFD
local function valid_utf8(s)
  local ok, bad = utf8.len(s)
  if ok then return s end
  local parts, i = {}, 1
  while bad do
    parts[#parts + 1] = s:sub(i, bad - 1)
    parts[#parts + 1] = "\u{FFFD}"
    i = bad + 1
    ok, bad = utf8.len(s, i)
  end
  parts[#parts + 1] = s:sub(i)
  return table.concat(parts)
end

local function encode_string(s)
  return '"' .. valid_utf8(s):gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function is_array(t)
  local n, count = rawlen(t), 0
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
    count = count + 1
  end
  return count == n
end

local function skipped(v)
  local tv = type(v)
  return tv == "userdata" or tv == "function" or tv == "thread"
end

-- The keys of t as {name, key} pairs, sorted by name, no name twice.
local function object_keys(t)
  local names, entries = {}, {}
  for k, v in pairs(t) do
    if type(k) == "string" and not skipped(v) then names[k] = true; entries[#entries + 1] = { k, k } end
  end
  local others = {}
  for k, v in pairs(t) do
    if type(k) ~= "string" and not skipped(v) then
      local ok, name = pcall(tostring, k)
      others[#others + 1] = { ok and type(name) == "string" and name or "<" .. type(k) .. ">", k }
    end
  end
  table.sort(others, function(a, b) return a[1] < b[1] end)
  for _, e in ipairs(others) do
    local name = e[1]
    if names[name] then
      name = string.format("%s (%s)", e[1], type(e[2]))
      local n = 1
      while names[name] do
        n = n + 1
        name = string.format("%s (%s) #%d", e[1], type(e[2]), n)
      end
    end
    names[name] = true
    entries[#entries + 1] = { name, e[2] }
  end
  table.sort(entries, function(a, b) return a[1] < b[1] end)
  return entries
end

local encode

local function encode_table(t, out, indent, depth, open)
  if open[t] then out[#out + 1] = '"<cycle>"'; return end
  if depth >= MAX_DEPTH then out[#out + 1] = '"<too deep>"'; return end
  open[t] = true
  local pad, pad_in = "", ""
  if indent then
    pad = "\n" .. string.rep(indent, depth)
    pad_in = "\n" .. string.rep(indent, depth + 1)
  end
  local sep = indent and ": " or ":"
  local mt = getmetatable(t)
  local object = type(mt) == "table" and rawget(mt, "__json") == "object"
  if not object and is_array(t) then
    local n = rawlen(t)
    if n == 0 then
      out[#out + 1] = "[]"
    else
      out[#out + 1] = "["
      for i = 1, n do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = pad_in
        encode(rawget(t, i), out, indent, depth + 1, open)
      end
      out[#out + 1] = pad .. "]"
    end
  else
    local entries = object_keys(t)
    out[#out + 1] = "{"
    for i, e in ipairs(entries) do
      if i > 1 then out[#out + 1] = "," end
      out[#out + 1] = pad_in .. encode_string(e[1]) .. sep
      encode(rawget(t, e[2]), out, indent, depth + 1, open)
    end
    out[#out + 1] = (#entries > 0 and pad or "") .. "}"
  end
  open[t] = nil
end

encode = function(v, out, indent, depth, open)
  local tv = type(v)
  if tv == "table" then
    encode_table(v, out, indent, depth, open)
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
  encode(v, out, indent, 0, {})
  return table.concat(out)
end

return json
