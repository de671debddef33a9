-- iomoon.compare.warn: what differed between two compared runs besides
-- the storage's answer (`iomoon compare`, doc/reports.md): the workloads
-- of paired phases (queue depth, workers, mix, engine, O_DIRECT, test
-- area, distribution, rate), how busy the machines were with other work, their kernel, CPU and cores, and the
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

-- A result's mix in words: "4 KiB 100 % read 100 % random", specs
-- joined by " + " with their weights when there are several.
local function mix_text(r)
  local specs = opt(r, "mix")
  if type(specs) ~= "table" then return nil end
  local out = {}
  for i, m in ipairs(specs) do
    local bs = {}
    for j, b in ipairs(type(opt(m, "bs")) == "table" and m.bs or {}) do
      local w = opt(m, "bs_weight_pct")
      bs[j] = util.ioping_size(b) .. (#m.bs > 1 and type(w) == "table" and string.format(" (%g %%)", w[j] or 0) or "")
    end
    out[i] = string.format("%s %g %% read %g %% random%s", table.concat(bs, "/"), opt(m, "read_pct") or 0,
      opt(m, "random_pct") or 0, #specs > 1 and string.format(" x %g %%", opt(m, "weight_pct") or 0) or "")
  end
  return table.concat(out, " + ")
end

-- The test area a result's I/O stayed in, in words (nil: not said)
local function area_text(r)
  local bytes, off = tonumber(opt(r, "area_bytes")), tonumber(opt(r, "area_offset_bytes")) or 0
  if not bytes then return nil end
  return util.ioping_size(bytes) .. (off > 0 and " at " .. util.ioping_size(off) or "")
end

-- What of a phase (or stream) says what ran, compared: the name a
-- difference is said by, and its value as text (nil: the result does not say).
local DEFINES = {
  { "qd", function(r) return opt(r, "qd") end },
  { "workers", function(r) return opt(r, "workers") end },
  { "block size and mix", mix_text },
  -- an IOMeter results.csv's engine is IOMeter itself: the tool compared, not a setting of the workload
  { "engine", function(r) local e = opt(r, "engine"); return e ~= "iometer" and e or nil end },
  { "I/O", function(r)
    local d = opt(r, "direct")
    if d == nil then return nil end
    return d and "O_DIRECT" or "buffered"
  end },
  { "test area", area_text },
  { "distribution", function(r) return opt(r, "dist") end },
  { "rate asked", function(r) local v = opt(r, "rate_asked_iops"); return v and string.format("%g IOPS", v) end },
}

-- the differences of DEFINES between ra and rb, "qd (1 in A, 4 in B)",
-- appended to out; prefix names a stream
local function defines_diff(ra, rb, prefix, out)
  for _, f in ipairs(DEFINES) do
    local a, b = f[2](ra), f[2](rb)
    if a ~= nil and b ~= nil and tostring(a) ~= tostring(b) then
      out[#out + 1] = string.format("%s%s (%s in A, %s in B)", prefix, f[1], visible(tostring(a)), visible(tostring(b)))
    end
  end
end

--- What differs between the definitions of two paired results, as
-- phrases: "qd (1 in A, 4 in B)", "stream 'log': workers (1 in A, 2 in
-- B)"; empty when they ran the same workload.
function warn.definition_diff(ra, rb)
  local out = {}
  defines_diff(ra, rb, "", out)
  local sa, sb = opt(ra, "streams"), opt(rb, "streams")
  sa, sb = type(sa) == "table" and sa or {}, type(sb) == "table" and sb or {}
  if #sa ~= #sb then
    out[#out + 1] = string.format("streams (%d in A, %d in B)", #sa, #sb)
  else
    for i = 1, #sa do
      defines_diff(sa[i], sb[i], string.format("stream '%s': ", visible(tostring(opt(sa[i], "name") or i))), out)
    end
  end
  return out
end

-- one line per pair whose definitions differ: what differs, and that
-- its better or worse is not the storage's alone
local function definition_lines(doc, out)
  for _, p in ipairs(doc.phases) do
    if p.definition_differs and #p.definition_differs > 0 then
      out[#out + 1] = string.format("%s: not a like-for-like comparison: the workloads differ in %s; its better or "
        .. "worse is the change of workload as much as of the storage", visible(p.name),
        table.concat(p.definition_differs, ", "))
    end
  end
end

--- The warnings of a comparison (compare.document's doc, its pairs made):
-- a list of lines, empty when the runs differ in none of these.
function warn.lines(doc)
  local out = {}
  definition_lines(doc, out)
  load_lines(doc, out)
  machine_lines(doc, out)
  target_lines(doc, out)
  return out
end

return warn
