-- iomoon.compare.warn: what differed between two compared runs besides
-- the storage's answer (`iomoon compare`, doc/reports.md): how busy the
-- machines were with other work, their kernel, CPU and cores, and the
-- targets (file or device, size, file system, disk) each pair of phases
-- ran on. Each difference is one line of the comparison's warnings: a
-- figure that moved may have moved for that.

local util = require "iomoon.util"

local warn = {}

local opt, visible = util.opt, util.shown

--- Two runs' shares of CPU busy with other work further apart than this
-- (percentage points) are warned about.
warn.load_gap_pct = 20

-- The share of the CPUs busy with other work than iomoon's over result r:
-- cpu.other_pct, or for a file from an iomoon before it, cpu.util_pct
-- less iomoon's own CPU time over the machine's cores x seconds; nil
-- when neither can be told.
local function other_pct(r, machine)
  local cpu = opt(r, "cpu")
  local v = opt(cpu, "other_pct")
  if type(v) == "number" then return v end
  local cores, secs = tonumber(opt(machine, "cores")), tonumber(opt(r, "seconds"))
  local util_pct, used = opt(cpu, "util_pct"), (tonumber(opt(cpu, "user_s")) or 0) + (tonumber(opt(cpu, "sys_s")) or 0)
  if type(util_pct) ~= "number" or not cores or cores < 1 or not secs or secs <= 0 then return nil end
  return math.max(0, util_pct - 100 * used / (secs * cores))
end

-- The share of CPU busy with other work over one side's phases of the
-- pairs, weighed by their measured time; nil when it cannot be told.
local function run_load(doc, side)
  local sum, secs = 0, 0
  for _, p in ipairs(doc.phases) do
    local r = p[side]
    local v, s = other_pct(r, doc[side].machine), tonumber(opt(r, "seconds")) or 0
    if v and s > 0 then sum, secs = sum + v * s, secs + s end
  end
  return secs > 0 and sum / secs or nil
end

local function load_lines(doc, out)
  local a, b = run_load(doc, "a"), run_load(doc, "b")
  if a and b and math.abs(a - b) > warn.load_gap_pct then
    out[#out + 1] = string.format("the machines were not as busy with other work: %.0f %% of the CPUs in A, %.0f %% in B "
      .. "(cpu.other_pct over the phases compared)", a, b)
  end
end

-- what of the machines is warned about when it differs: field, as said
local MACHINE = { { "kernel", "kernel" }, { "cpu_model", "CPU" }, { "cores", "number of cores" } }

local function machine_lines(doc, out)
  local ma, mb = doc.a.machine, doc.b.machine
  for _, f in ipairs(MACHINE) do
    local a, b = opt(ma, f[1]), opt(mb, f[1])
    if a ~= nil and b ~= nil and tostring(a) ~= tostring(b) then
      out[#out + 1] = string.format("the %s differs: %s in A, %s in B", f[2], visible(tostring(a)), visible(tostring(b)))
    end
  end
end

-- machine.targets' entry for path, or nil
local function described(machine, path)
  for _, t in ipairs(type(opt(machine, "targets")) == "table" and machine.targets or {}) do
    if opt(t, "path") == path then return t end
  end
end

-- One target of a result: its text ("/dev/sdb (block, 1.8 TiB, on /dev/sdb,
-- Samsung SSD)") and what is compared of it (a file's path is not: another
-- file of the same size on the same file system and disk is the same test
-- area).
local function target_of(path, machine)
  local t = described(machine, path) or {}
  local kind, size = opt(t, "kind"), tonumber(opt(t, "size"))
  local parts = { kind }
  parts[#parts + 1] = size and util.ioping_size(size) or nil
  parts[#parts + 1] = opt(t, "filesystem")
  parts[#parts + 1] = opt(t, "device") and "on " .. opt(t, "device") or nil
  parts[#parts + 1] = opt(t, "model")
  local what = table.concat(parts, ", ")
  local text = visible(path) .. (what ~= "" and " (" .. visible(what) .. ")" or "")
  return text, (kind == "file" and what ~= "") and what or path .. "|" .. what
end

-- a result's targets: their text and what is compared of them
local function targets_of(r, machine)
  local t = opt(r, "target")
  local list = type(t) == "table" and t or { t }
  local texts, keys = {}, {}
  for i, path in ipairs(list) do texts[i], keys[i] = target_of(tostring(path), machine) end
  return table.concat(texts, ", "), table.concat(keys, "\n")
end

local function target_lines(doc, out)
  local seen, order = {}, {}
  for _, p in ipairs(doc.phases) do
    local ta, ka = targets_of(p.a, doc.a.machine)
    local tb, kb = targets_of(p.b, doc.b.machine)
    if ka ~= kb then
      local key = ta .. "\0" .. tb
      if not seen[key] then
        seen[key] = { a = ta, b = tb, names = {} }
        order[#order + 1] = seen[key]
      end
      table.insert(seen[key].names, visible(p.name))
    end
  end
  for _, w in ipairs(order) do
    out[#out + 1] = string.format("the target differs (%s): %s in A, %s in B", table.concat(w.names, ", "), w.a, w.b)
  end
end

--- The warnings of a comparison (compare.document's doc, its pairs made):
-- a list of lines, empty when the runs differ in none of these.
function warn.lines(doc)
  local out = {}
  load_lines(doc, out)
  machine_lines(doc, out)
  target_lines(doc, out)
  return out
end

return warn
