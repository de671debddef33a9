-- iomoon.json: JSON for results, the one encoder and decoder of the
-- library (RFC 8259). json.encode writes a results file, json.compact the
-- HTML report's data block, json.decode reads a file back.
--
-- json.encode: whatever a result or a script's `meta` holds, the output is
-- one valid JSON text and encoding does not raise:
-- - A table whose keys are exactly 1..n is an array; any other table is an
--   object with string keys, sorted (so output is stable and diffable). An
--   empty table is an array unless its metatable says __json = "object" (as
--   the core's maps do, and json.object's tables).
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
-- json.compact is smaller and faster, for data a page's script reads: no
-- white space, floats to 6 significant digits, keys sorted only when
-- asked, a table with [1] an array (of 1..#t), nesting deeper than 20
-- levels, userdata and functions null, json.raw's values as they are.
local errors = require "iomoon.errors"

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
  if not s:find('[%c"\\\128-\255]') then return '"' .. s .. '"' end -- nothing to escape (the common case, fast)
  return '"' .. valid_utf8(s):gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

-- a number as JSON: an integer whole, a float in float_format, NaN and
-- the infinities (which JSON cannot hold) null
local function number(v, float_format)
  if math.type(v) == "integer" then return string.format("%d", v) end
  if v ~= v or v == math.huge or v == -math.huge then return "null" end
  return string.format(float_format, v)
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
    out[#out + 1] = number(v, "%.17g")
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

--- The metatable that keeps a table an object when empty ({} in a file,
-- e.g. errors_by_errno): json.decode's objects have it.
json.OBJECT = { __json = "object" }

--- t, written as an object even when empty (json.OBJECT).
function json.object(t) return setmetatable(t, json.OBJECT) end

-- ---- json.compact ----

local RAW = {} -- metatable of {json = "..."}: already encoded

local function compact(v, out, sorted, depth)
  local t = type(v)
  if t == "number" then
    out[#out + 1] = number(v, "%.6g")
  elseif t == "string" then
    out[#out + 1] = encode_string(v)
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  elseif t ~= "table" or depth > 20 then
    out[#out + 1] = "null"
  elseif getmetatable(v) == RAW then
    out[#out + 1] = v.json
  elseif v[1] ~= nil or next(v) == nil then
    out[#out + 1] = "["
    for i = 1, #v do
      if i > 1 then out[#out + 1] = "," end
      compact(v[i], out, sorted, depth + 1)
    end
    out[#out + 1] = "]"
  else
    local keys, by_name = {}, {}
    for k, x in pairs(v) do
      keys[#keys + 1] = tostring(k)
      by_name[tostring(k)] = x
    end
    if sorted then table.sort(keys) end
    out[#out + 1] = "{"
    for i, k in ipairs(keys) do
      if i > 1 then out[#out + 1] = "," end
      out[#out + 1] = encode_string(k)
      out[#out + 1] = ":"
      compact(by_name[k], out, sorted, depth + 1)
    end
    out[#out + 1] = "}"
  end
end

--- v as compact JSON (above); keys sorted when `sorted` (a stable text
-- to compare two tables by).
function json.compact(v, sorted)
  local out = {}
  compact(v, out, sorted, 0)
  return table.concat(out)
end

--- v encoded now (json.compact), to be written as it is wherever
-- json.compact meets it.
function json.raw(v) return setmetatable({ json = json.compact(v) }, RAW) end

-- ---- json.decode ----

local ESCAPES = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

-- A JSON parser over s; p:fail(what) raises with the position.
local function parser(s, fail)
  local p = { s = s, i = 1 }
  local value

  local function ws()
    p.i = s:find("[^ \t\r\n]", p.i) or #s + 1
  end

  local function err(what)
    local line = select(2, s:sub(1, p.i):gsub("\n", "")) + 1
    fail(string.format("not JSON at line %d (%s)", line, what))
  end

  local function str()
    local out, i = {}, p.i + 1
    while true do
      local j = s:find('["\\%c]', i)
      if not j then err("a string without its closing quote") end
      out[#out + 1] = s:sub(i, j - 1)
      local c = s:sub(j, j)
      if c == '"' then p.i = j + 1; return table.concat(out) end
      if c ~= "\\" then err("a control character in a string") end
      local e = s:sub(j + 1, j + 1)
      if ESCAPES[e] then
        out[#out + 1] = ESCAPES[e]
        i = j + 2
      elseif e == "u" then
        local hex = s:match("^%x%x%x%x", j + 2)
        if not hex then err("a bad \\u escape") end
        local cp = tonumber(hex, 16)
        i = j + 6
        local lo = cp >= 0xD800 and cp < 0xDC00 and s:match("^\\u(%x%x%x%x)", i)
        if lo and tonumber(lo, 16) >= 0xDC00 and tonumber(lo, 16) < 0xE000 then
          cp = 0x10000 + (cp - 0xD800) * 0x400 + (tonumber(lo, 16) - 0xDC00)
          i = i + 6
        end
        out[#out + 1] = utf8.char(cp)
      else
        err("a bad escape in a string")
      end
    end
  end

  local function num()
    local t = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", p.i)
    local n = t and tonumber(t)
    if n and not t:find("[.eE]") then n = math.tointeger(n) or n end -- 12 stays an integer, as it was written
    if not n then err("a bad number") end
    if n == math.huge or n == -math.huge then err("a number too large for a double") end
    p.i = p.i + #t
    return n
  end

  local function list(depth)
    local t, n = {}, 0
    p.i = p.i + 1
    ws()
    if s:sub(p.i, p.i) == "]" then p.i = p.i + 1; return t end
    while true do
      n = n + 1
      t[n] = value(depth + 1)
      ws()
      local c = s:sub(p.i, p.i)
      p.i = p.i + 1
      if c == "]" then return t end
      if c ~= "," then p.i = p.i - 1; err("expected , or ] in a list") end
    end
  end

  local function object(depth)
    local t = setmetatable({}, json.OBJECT)
    p.i = p.i + 1
    ws()
    if s:sub(p.i, p.i) == "}" then p.i = p.i + 1; return t end
    while true do
      ws()
      if s:sub(p.i, p.i) ~= '"' then err("expected a name in quotes") end
      local k = str()
      ws()
      if s:sub(p.i, p.i) ~= ":" then err("expected : after a name") end
      p.i = p.i + 1
      t[k] = value(depth + 1)
      ws()
      local c = s:sub(p.i, p.i)
      p.i = p.i + 1
      if c == "}" then return t end
      if c ~= "," then p.i = p.i - 1; err("expected , or } in an object") end
    end
  end

  local WORDS = { ["true"] = true, ["false"] = false }
  value = function(depth)
    if depth > 200 then err("nested too deep") end
    ws()
    local c = s:sub(p.i, p.i)
    if c == "{" then return object(depth) end
    if c == "[" then return list(depth) end
    if c == '"' then return str() end
    if c == "-" or c:match("%d") then return num() end
    for w, v in pairs(WORDS) do
      if s:sub(p.i, p.i + #w - 1) == w then p.i = p.i + #w; return v end
    end
    if s:sub(p.i, p.i + 3) == "null" then p.i = p.i + 4; return nil end
    err(c == "" and "the text ends early" or "unexpected '" .. c .. "'")
  end

  function p.document()
    local v = value(0)
    ws()
    if p.i <= #s then err("text after the end of the document") end
    return v
  end
  return p
end

--- Parse the JSON text s; fail(message) is called (and must raise) on an
-- error ("not JSON at line 3 (expected , or ] in a list)"; default: an
-- input error). Objects get json.OBJECT, which keeps them objects when
-- encoded; null is nil; a number written without a fraction or exponent
-- is an integer.
function json.decode(s, fail)
  fail = fail or function(m) errors.input("%s", m) end
  return parser(s, fail).document()
end

return json
