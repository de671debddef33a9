-- iomoon.errors: raise the same error objects the core raises, from Lua,
-- and check the tables users hand the library as the core checks phases.
-- input(...) is bad input (the command line exits 2), run(...) a failed
-- run (exit 1); both take string.format's arguments and print their
-- message with tostring(). A message is shown as util.shown shows text
-- (control bytes escaped: a name with a newline cannot forge a second
-- line; a URL's password left out), as the core's messages are.
local util = require "iomoon.util"

local registry = debug.getregistry()

local errors = {}

local escaped = util.shown

-- An input error carries the field its message starts with as data, as
-- the core's do: { msg = "phase.qd: 0 is out of range ...",
-- field = "phase.qd", what = "0 is out of range ..." }.
function errors.input(fmt, ...)
  local msg = escaped(string.format(fmt, ...))
  local field, what = msg:match("^([%w_%.%[%]%-]+): (.*)$")
  error(setmetatable({ where = "", msg = msg, field = field, what = what }, registry["iomoon.input_error"]), 0)
end

function errors.run(fmt, ...)
  error(setmetatable({ where = "", msg = escaped(string.format(fmt, ...)) }, registry["iomoon.run_error"]), 0)
end

-- Edit distance of two short strings: insertions, deletions, substitutions
-- and transpositions of neighbours ("form" is one edit from "from").
local function distance(a, b)
  local d = {}
  for i = 0, #a do d[i] = { [0] = i } end
  for j = 0, #b do d[0][j] = j end
  for i = 1, #a do
    for j = 1, #b do
      local best = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a:byte(i) == b:byte(j) and 0 or 1))
      if i > 1 and j > 1 and a:byte(i) == b:byte(j - 1) and a:byte(i - 1) == b:byte(j) then
        best = math.min(best, d[i - 2][j - 2] + 1)
      end
      d[i][j] = best
    end
  end
  return d[#a][#b]
end

--- The name in `names` (a list) nearest to `k`, or nil when none is near
-- (the same rule as the core's: an edit distance of at most 1 for names of
-- up to 4 characters, else 2, or a quarter of the length for long names; a
-- known name that `k` starts with, or a shared start of half the longer
-- name, counts as 2).
function errors.nearest(k, names)
  if type(k) ~= "string" or #k > 63 then return nil end
  local best, best_d
  for _, n in ipairs(names) do
    local d = distance(k, n)
    if d > 2 and #n >= 2 and k:sub(1, #n) == n then d = 2 end
    if #k >= 2 and n:sub(1, #k) == k and #n > #k then d = 0.5 end -- "p99" for "p99_ns": nearer than any edit
    -- a shared start of half the longer name ("fail_if", "fail_when")
    local common = 0
    while common < math.min(#k, #n) and k:byte(common + 1) == n:byte(common + 1) do common = common + 1 end
    if d > 2 and common >= 3 and common * 2 >= math.max(#k, #n) then d = 2 end
    if not best_d or d < best_d or (d == best_d and #n < #best) then best, best_d = n, d end
  end
  if best and best_d <= (#k <= 4 and 1 or math.max(2, #k // 4)) then return best end
  return nil
end

--- ", did you mean 'x'?" for an unknown `k`, or "" when nothing is near.
function errors.suggest(k, names, prefix)
  local n = errors.nearest(k, names)
  return n and string.format(" (did you mean '%s%s'?)", prefix or "", n) or ""
end

--- Check table `t` given as `what` against `spec`, a map of field name ->
-- expected Lua type ("number", "string", "table", "function", "boolean", or
-- a list of such, or "any"). An unknown field, or one of the wrong type, is
-- an input error naming the field, with the nearest known name. Returns t.
function errors.check_fields(t, what, spec)
  if type(t) ~= "table" then
    errors.input("%s: a %s is not a table of options", what, type(t))
  end
  local names = {}
  for k in pairs(spec) do names[#names + 1] = k end
  table.sort(names)
  for k, v in pairs(t) do
    local want = spec[k]
    if want == nil then
      local near = errors.nearest(tostring(k), names)
      if near then
        errors.input("%s: unknown field '%s' (did you mean '%s'?)", what, tostring(k), near)
      end
      errors.input("%s: unknown field '%s' (known: %s)", what, tostring(k), table.concat(names, ", "))
    end
    if want ~= "any" then
      local ok = false
      for w in tostring(type(want) == "table" and table.concat(want, " ") or want):gmatch("%S+") do
        if type(v) == w then ok = true end
      end
      if not ok then
        errors.input("%s.%s: a %s is not allowed here (give a %s)", what, tostring(k), type(v),
          type(want) == "table" and table.concat(want, " or ") or want)
      end
    end
  end
  return t
end

return errors
