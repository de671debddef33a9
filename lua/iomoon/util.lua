-- iomoon.util: small helpers the library shares, so each is written once.
-- copy and merge are shallow: nested tables are shared, not copied.
--
-- Sizes are written in several formats, each the one a tool's users know;
-- they live here, side by side, so none is written twice:
--   ioping_size      "512 B", "4 KiB", "1.5 MiB"   (iomoon ping's lines)
--   ioping_bytes_rate "512 B/s", "12.0 MiB/s"       (iomoon ping's summary)
--   analyzer_size    "0.5k", "8k", "1m", "1000"     (I/O Analyzer spec names)
--   iometer_size     "0.5K", "4K", "1024K"          (IOMeter sheet test names)
-- The core's messages use units_format_size (src/core/units.c): "1.50 MiB", two
-- decimals, a third format on purpose (a message names a size exactly).

local util = {}

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
  if type(v) == "string" then return require("iomoon").redact(v) end
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
