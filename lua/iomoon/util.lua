-- iomoon.util: small helpers the library shares, so each is written once.
-- copy and merge are shallow: nested tables are shared, not copied.
--
-- Text shown in a message or a report goes through util.shown, the one
-- escaper of the library (the C core's, src/core/shown.h, writes the same):
-- control characters as \n, \r, \t or \xHH, so a name can neither break
-- a line nor forge one. trim, is_url, whole, finite, opt and csv_safe are
-- written here once for the same reason.
--
-- Sizes are written in several formats, each the one a tool's users know;
-- they live here, side by side, so none is written twice:
--   ioping_size      "512 B", "4 KiB", "1.5 MiB"   (iomoon ping's lines)
--   ioping_bytes_rate "512 B/s", "12.0 MiB/s"       (iomoon ping's summary)
--   analyzer_size    "0.5k", "8k", "1m", "1000"     (I/O Analyzer spec names)
--   iometer_size     "0.5K", "4K", "1024K"          (IOMeter sheet test names)
-- The core's messages use units_format_size (src/core/units.c): "1.50 MiB", two
-- decimals, a third format on purpose (a message names a size exactly).

local iomoon = require "iomoon"

local util = {}

local CONTROL = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

--- s as one line of text may show it: control characters (newline, CR,
-- tab, ESC, DEL) written as \n, \r, \t or \xHH, the C1 controls as \u0080
-- to \u009f, bytes that are not UTF-8 as \xHH, so a name can neither break
-- a row nor forge one, and the text is valid UTF-8; a URL's password is
-- left out (iomoon.redact). nil shows as "", other values as tostring's.
function util.shown(s)
  s = tostring(s == nil and "" or s)
  local ok, bad = utf8.len(s)
  while not ok do -- a byte that is not UTF-8: \xHH
    s = s:sub(1, bad - 1) .. string.format("\\x%02x", s:byte(bad)) .. s:sub(bad + 1)
    ok, bad = utf8.len(s, bad + 4)
  end
  s = s:gsub("%c", function(c) return CONTROL[c] or string.format("\\x%02x", c:byte()) end)
  return iomoon.redact((s:gsub("\xc2([\x80-\x9f])", function(c) return string.format("\\u%04x", c:byte()) end)))
end

--- s without the white space at its start and end.
function util.trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

--- Whether s is a URL (a scheme, then "://": nbd://, iscsi://, in any case).
function util.is_url(s) return type(s) == "string" and s:match("^%a[%w+.-]*://") ~= nil end

--- n as a whole number: "%d" for an integer or an integral float, else
-- "%.0f" (a count read back from a file may be a huge float).
--- A share in percent as a phase takes it: a computed share between 0
-- and 1 (a trace's 0.3 % reads) as the string "0.3%", which the core
-- takes as 0.3 % (a plain 0.3 is refused as a fraction); others as they are.
function util.share(n)
  if type(n) == "number" and n > 0 and n < 1 then return string.format("%.6g%%", n) end
  return n
end

function util.whole(n)
  local i = math.tointeger(n)
  return i and string.format("%d", i) or string.format("%.0f", n)
end

--- A CSV cell as a spreadsheet may read it: a text it would run as a
-- formula (=, +, -, @, tab or CR first) gets a leading ' (OWASP's advice
-- on CSV injection); numbers, and texts such as -1.5, are left alone.
function util.csv_safe(v)
  if type(v) ~= "string" or tonumber(v) then return v end
  if v:find("^[=+%-@\t\r]") then return "'" .. v end
  return v
end

--- v when it is a finite number, else nil (NaN, the infinities and
-- anything not a number).
function util.finite(v)
  return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge and v or nil
end

local function index(t, k) return t[k] end

--- t[k], or nil where reading it raises (a sealed result, whose misspelt
-- fields are errors) or t is not a table.
function util.opt(t, k)
  if type(t) ~= "table" then return nil end
  local v = rawget(t, k)
  if v ~= nil or getmetatable(t) == nil then return v end
  local ok
  ok, v = pcall(index, t, k)
  if ok then return v end
end

--- A new table with the fields of t (nil gives an empty table).
function util.copy(t)
  local c = {}
  for k, v in pairs(t or {}) do c[k] = v end
  return c
end

--- v with every string in it, at any depth, keys too, without a URL's
-- password (iomoon.redact): each table copied (its metatable kept; a
-- table met twice copied once), other values as they are. What reaches a
-- report, or is read back from a file, goes through it.
function util.redacted(v, seen)
  if type(v) == "string" then return iomoon.redact(v) end
  if type(v) ~= "table" then return v end
  seen = seen or {}
  if seen[v] then return seen[v] end
  local c = {}
  seen[v] = c
  for k, x in next, v do c[util.redacted(k, seen)] = util.redacted(x, seen) end
  return setmetatable(c, getmetatable(v))
end

--- A new table with the fields of every argument, later ones replacing
-- earlier ones; nil arguments are skipped.
function util.merge(...)
  local c = {}
  for i = 1, select("#", ...) do
    for k, v in pairs((select(i, ...)) or {}) do c[k] = v end
  end
  return c
end

-- v scaled by 1024 to the largest of units it reaches: the value and the index
local function binary(v, units)
  local i = 1
  while v >= 1024 and i < #units do v = v / 1024; i = i + 1 end
  return v, i
end

--- ioping's sizes: whole numbers bare, others with one decimal.
function util.ioping_size(bytes)
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local v, i = binary(bytes, units)
  return (v == math.floor(v) and string.format("%d", v) or string.format("%.1f", v)) .. " " .. units[i]
end

--- ioping's byte rates: whole bytes per second, else one decimal always.
function util.ioping_bytes_rate(bps)
  local units = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" }
  local v, i = binary(bps, units)
  return string.format(i == 1 and "%.0f %s" or "%.1f %s", v, units[i])
end

--- I/O Analyzer's block sizes, as its spec names write them: whole or half
-- MiB or KiB ("1m", "8k", "0.5k"), else the byte count ("1000").
function util.analyzer_size(bytes)
  for _, u in ipairs { { 1048576, "m" }, { 1024, "k" } } do
    local v = bytes / u[1]
    if v >= 0.5 and (v * 2) == math.floor(v * 2) then
      -- whole or half units only, so one decimal at most (never %g's exponents)
      return (v == math.floor(v) and string.format("%d", v) or string.format("%.1f", v)) .. u[2]
    end
  end
  return tostring(bytes)
end

--- IOMeter's block sizes, as its sheets write them: always in K ("4K",
-- "1024K", "0.5K").
function util.iometer_size(bytes)
  return bytes % 1024 == 0 and string.format("%dK", bytes // 1024) or string.format("%gK", bytes / 1024)
end

return util
