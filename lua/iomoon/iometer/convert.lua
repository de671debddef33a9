-- iomoon.iometer.convert: an IOMeter .icf file's plan (iomoon.iometer.plan)
-- written as a Lua suite (`iomoon convert FILE.icf > suite.lua`): the same
-- phases, as tables a user can read and extend, with comments where an
-- IOMeter concept becomes an iomoon field. Running the suite gives the
-- phases `iomoon suite FILE.icf` runs (both go through iometer.resolve).

local plan = require "iomoon.iometer.plan"

local convert = {}

local ORDER = { "name", "mix", "think", "qd", "workers", "targets", "region", "seed", "streams", "meta",
  "bs", "weight", "read", "random", "align", "burst", "delay", "offset", "size" }
local RANK = {}
for i, k in ipairs(ORDER) do RANK[k] = i end

local function key_text(k)
  if type(k) == "string" and k:match("^[%a_][%w_]*$") then return k end
  return "[" .. (type(k) == "string" and string.format("%q", k) or tostring(k)) .. "]"
end

-- v as a Lua expression on one line (tables with their keys in ORDER,
-- then sorted).
local function value(v)
  local t = type(v)
  if t == "string" then return (string.format("%q", v):gsub("\\\n", "\\n")) end
  if t == "number" then return math.type(v) == "integer" and tostring(v) or string.format("%.17g", v) end
  if t ~= "table" then return tostring(v) end
  local parts, n = {}, #v
  for i = 1, n do parts[#parts + 1] = value(v[i]) end
  local keys = {}
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b)
    local ra, rb = RANK[a] or 1000, RANK[b] or 1000
    if ra ~= rb then return ra < rb end
    return tostring(a) < tostring(b)
  end)
  for _, k in ipairs(keys) do parts[#parts + 1] = key_text(k) .. " = " .. value(v[k]) end
  return "{ " .. table.concat(parts, ", ") .. " }"
end
convert.value = value

local function names_of(list, names)
  local out = {}
  for i, k in ipairs(list) do out[i] = names[k] end
  return (table.concat(out, ", "):gsub("%c", "?")) -- for a comment: a CR would end it
end

-- The lines of one phase template, commented.
local function phase_lines(p, names, out)
  local m = p.meta.iometer
  out[#out + 1] = string.format("      -- test %d: access spec %d of each worker (%s), %d worker%s, %d disk%s%s", m.test,
    m.access_index, table.concat(m.worker_names, ", "):gsub("%c", "?"), m.workers, m.workers == 1 and "" or "s", m.disks,
    m.disks == 1 and "" or "s", m.qd and ", QD " .. m.qd or "")
  out[#out + 1] = "      { name = " .. value(p.name) .. ","
  local function field(k, v, comment)
    if v == nil then return end
    out[#out + 1] = string.format("        %s = %s,%s", k, value(v), comment and "  -- " .. comment or "")
  end
  field("mix", p.mix, p.mix and "size, % of size, % reads, % random (, align)")
  field("think", p.think, p.think and "IOMeter's burst and delay (ms)")
  field("qd", p.qd, p.qd and "outstanding I/Os per target")
  field("workers", p.workers, p.workers and "one iomoon worker per IOMeter target")
  field("targets", p.targets, p.targets and "the file's disk targets: " .. names_of(p.targets, names))
  field("region", p.region, p.region and "'Disk maximum size, starting sector (512-byte sectors)")
  field("seed", p.seed, p.seed and "the worker's fixed seed")
  field("pattern", p.pattern, p.pattern and "the file's data pattern (" .. (p.pattern == "repeat" and
    "0, repeating bytes" or p.pattern == "reuse" and "1, pseudo random" or "2, full random") .. ")")
  if p.streams then
    out[#out + 1] = "        streams = {  -- one per IOMeter worker (their access specs or queue depths differ)"
    for _, st in ipairs(p.streams) do
      out[#out + 1] = "          " .. value(st) .. ",  -- " .. names_of(st.targets, names)
    end
    out[#out + 1] = "        },"
  end
  field("meta", p.meta)
  out[#out + 1] = "      },"
end

-- The header comment: where the file came from and how IOMeter maps.
local function header(pl, path, out)
  local s = pl.setup
  local TT = plan.TEST_TYPES
  -- one comment line: a control byte in a name or path (a newline, or a CR, which Lua also ends a line at) is '?'
  local function c(fmt, ...) out[#out + 1] = "-- " .. string.format(fmt, ...):gsub("%c", "?") end
  c("%s: converted by `iomoon convert` from %s (IOMeter Version %s).", pl.name, pl.file, pl.version)
  c("Run it: iomoon suite THIS.lua --target PATH%s", #pl.target_names > 1 and ",PATH... (one per target below)" or "")
  c("(or --engine sim without a target, to try it).")
  c("")
  c("How IOMeter's settings map onto iomoon's (doc/import.md, \"IOMeter\"):")
  c("  'Run Time %d s, 'Ramp Up Time %d s -> defaults.duration, defaults.ramp (--time, --ramp override)",
    s.run_s, s.ramp_s)
  c("  each test (the k-th access spec of every worker, at one step of the cycle) -> one phase, named")
  c("    as IOMeter names it (the access spec; cycled tests add what varies: workers, disks, QD)")
  c("  access spec lines -> mix: size -> bs, %% of size -> weight, %% reads -> read, %% random -> random,")
  c("    align -> align (0, IOMeter's sector boundaries: iomoon's default, the block size)")
  c("  delay, burst -> think = { burst = N, delay = \"D ms\" }; reply must be 0")
  c("  'Number of outstanding IOs (per target) -> qd; a worker's N targets -> workers = N")
  c("  'Disk maximum size, starting sector -> region (capped at the target's size)")
  c("  workers with different access specs or queue depths -> streams, one per worker")
  c("  Test Type %s (workers %d+%d%s, disks %d+%d%s, queue depth %d..%d %s %d) -> the phases below",
    TT[s.type], s.workers.start, s.workers.step, s.workers.exponential and " exp" or "", s.targets.start,
    s.targets.step, s.targets.exponential and " exp" or "", s.queue.start, s.queue["end"],
    s.queue.exponential and "x" or "+", s.queue.step)
  for _, sk in ipairs(pl.skipped) do c("Skipped (--skip-unsupported): %s", sk) end
end

--- The Lua suite for plan pl of the .icf at path, as text.
function convert.lua(pl, path)
  local out = {}
  header(pl, path, out)
  out[#out + 1] = 'local iometer = require "iomoon.iometer"'
  out[#out + 1] = ""
  out[#out + 1] = "-- IOMeter's disk targets; --target gives their paths, in this order (\"a,b\")"
  out[#out + 1] = "local TARGETS = " .. value(pl.target_names)
  out[#out + 1] = "-- the size a new target file gets (bytes: the end of 'Disk maximum size; else 1g)"
  out[#out + 1] = "local SIZE = " .. value(pl.size)
  out[#out + 1] = ""
  out[#out + 1] = "return {"
  for _, k in ipairs({ "name", "description", "source" }) do out[#out + 1] = "  " .. k .. " = " .. value(pl[k]) .. "," end
  out[#out + 1] = "  size = SIZE,"
  out[#out + 1] = "  name_width = " .. value(pl.name_width) .. ","
  out[#out + 1] = "  defaults = " .. value(pl.defaults) .. ","
  out[#out + 1] = "  phases = function(opts)"
  out[#out + 1] = "    -- `targets` lists indexes into TARGETS; iometer.resolve puts --target's paths there"
  out[#out + 1] = "    return iometer.resolve(opts, TARGETS, SIZE, {"
  for _, p in ipairs(pl.tests) do phase_lines(p, pl.target_names, out) end
  out[#out + 1] = "    })"
  out[#out + 1] = "  end,"
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

return convert
