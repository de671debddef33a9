-- iomoon.compare.pairs: which phase of run A is compared with which phase
-- of run B (`iomoon compare`, doc/reports.md). First the pairs asked for
-- by name (`--pair A=B`: a replay against the synthetic workload made from
-- its trace), then the others by name (the k-th phase of a name in A with
-- the k-th of that name in B; then a name with a suite's overrides shown
-- after it, "NAME (--qd 4)", with NAME) or by position (the k-th phase left in A
-- with the k-th left in B).

local errors = require "iomoon.errors"
local util = require "iomoon.util"

local pairs_of = {}

local visible = util.shown

-- the places of the phases named `name` in a list of results, in order
local function where(phases, name)
  local at = {}
  for i, r in ipairs(phases) do
    if r.name == name then at[#at + 1] = i end
  end
  return at
end

-- the names of a list of results, each once, in order
local function names(phases)
  local out, seen = {}, {}
  for _, r in ipairs(phases) do
    if not seen[r.name] then seen[r.name] = true; out[#out + 1] = r.name end
  end
  return out
end

--- The names as a message lists them: at most `max` (8), then how many more.
function pairs_of.list(ns, max)
  max = max or 8
  local shown = {}
  for i = 1, math.min(#ns, max) do shown[i] = "'" .. visible(ns[i]) .. "'" end
  local more = #ns > max and string.format(" and %d more", #ns - max) or ""
  return table.concat(shown, ", ") .. more
end

-- name must be a phase of run d (saved.load's document): else an input
-- error naming it, with the nearest name of d or d's names
local function check_name(name, d)
  if #where(d.phases, name) > 0 then return end
  local ns = names(d.phases)
  local near = errors.nearest(name, ns)
  errors.input("--pair: '%s' is not a phase of %s (%s)", visible(name), visible(d.file or "the run"),
    near and "the nearest is '" .. visible(near) .. "'"
      or #ns > 0 and "its phases: " .. pairs_of.list(ns) or "it has no phases")
end

--- A `--pair` value, "A=B", as the names of a phase of run da and one of
-- run db. A name may hold "=": the first split that names a phase on both
-- sides is taken; without one, the first "=" splits, and the name that is
-- not a phase is an input error (with the nearest name).
function pairs_of.parse(text, da, db)
  if type(text) ~= "string" or not text:find("=", 1, true) then
    errors.input("--pair: '%s' is not A=B (a phase of %s, '=', a phase of %s)", visible(text),
      visible(da.file or "A"), visible(db.file or "B"))
  end
  local first
  for at in text:gmatch("()=") do
    local a, b = text:sub(1, at - 1), text:sub(at + 1)
    first = first or { a, b }
    if #where(da.phases, a) > 0 and #where(db.phases, b) > 0 then return a, b end
  end
  check_name(first[1], da)
  check_name(first[2], db)
end

-- the places in phases not in used, in order
local function rest(phases, used)
  local out = {}
  for i = 1, #phases do
    if not used[i] then out[#out + 1] = i end
  end
  return out
end

-- a name without the overrides a suite shows after it ("OLTP mix (--qd
-- 32)": "OLTP mix"; iomoon.suite.name_of)
local function base_name(name)
  return (tostring(name):gsub(" %(%-%-[^()]*%)$", ""))
end

-- the unpaired phases matched by name (key: the name, or what of it is
-- compared): the k-th of a name among A's with the k-th of that name
-- among B's
local function by_name(pa, pb, used_a, used_b, pair, key)
  key = key or function(n) return n end
  local in_b, taken = {}, {}
  for _, j in ipairs(rest(pb, used_b)) do
    local l = in_b[key(pb[j].name)] or {}
    in_b[key(pb[j].name)] = l
    l[#l + 1] = j
  end
  for _, i in ipairs(rest(pa, used_a)) do
    local name = key(pa[i].name)
    local k = (taken[name] or 0) + 1
    if in_b[name] and in_b[name][k] then
      taken[name] = k
      pair(i, in_b[name][k])
    end
  end
end

--- The phases of runs da and db (saved.load's documents) to compare:
-- a list of {i, j} (phase i of A with phase j of B, in A's order), and
-- the places of the phases of A and of B left unpaired. opts.pairs: the
-- `--pair` values ("A=B", each name's phases matched occurrence by
-- occurrence); opts.by: "name" (default) or "position", how the others
-- are paired. A name not in its run, or a phase paired twice, is an input
-- error.
function pairs_of.match(da, db, opts)
  opts = opts or {}
  local pa, pb = da.phases, db.phases
  local used_a, used_b, out = {}, {}, {}
  local function pair(i, j)
    used_a[i], used_b[j] = true, true
    out[#out + 1] = { i, j }
  end
  for _, text in ipairs(opts.pairs or {}) do
    local a, b = pairs_of.parse(text, da, db)
    local ia, ib = where(pa, a), where(pb, b)
    for k = 1, math.min(#ia, #ib) do
      if used_a[ia[k]] or used_b[ib[k]] then
        errors.input("--pair: '%s' pairs a phase another --pair already paired", visible(text))
      end
      pair(ia[k], ib[k])
    end
  end
  local by = opts.by or "name"
  if by == "position" then
    local ra, rb = rest(pa, used_a), rest(pb, used_b)
    for k = 1, math.min(#ra, #rb) do pair(ra[k], rb[k]) end
  elseif by == "name" then
    by_name(pa, pb, used_a, used_b, pair)
    -- then a name with the overrides shown after it pairs with the same name without them
    -- (an IOMeter run at QD 32 and `iomoon suite X.icf --qd 32`): compare's warnings say what differs
    by_name(pa, pb, used_a, used_b, pair, base_name)
  else
    errors.input("--pair-by: '%s' is not a way to pair phases (name or position)", visible(by))
  end
  table.sort(out, function(x, y) return x[1] < y[1] end)
  return out, rest(pa, used_a), rest(pb, used_b)
end

--- The names of a run's phases, each once, in order (for messages).
pairs_of.names = names

return pairs_of
