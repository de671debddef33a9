-- iomoon.iometer.workers: the 'MANAGER LIST section of an IOMeter .icf
-- file (IOMeter's Manager::LoadConfig and Worker::LoadConfig): managers,
-- their workers, each worker's default target settings (outstanding I/Os,
-- test connection rate, fixed seed, disk size and starting sector, data
-- pattern), its assigned access specifications and its targets.

local util = require "iomoon.util"

local workers = {}

local trim = util.trim
local function same(a, b) return a:lower() == b:lower() end
local function starts(s, prefix) return s:sub(1, #prefix):lower() == prefix:lower() end

local shown = util.shown

-- ENABLED / DISABLED
local function flag(r, tok, line, what)
  tok = trim(tok or "")
  if same(tok, "ENABLED") then return true end
  if same(tok, "DISABLED") then return false end
  r.fail(line, "%s: '%s' is neither ENABLED nor DISABLED", what, shown(tok))
end

-- The fields of a comma-separated value.
local function fields(v)
  local f = {}
  for d in (v .. ","):gmatch("([^,]*),") do f[#f + 1] = trim(d) end
  return f
end

-- A whole number field (the message names it).
local function whole(r, s, line, what)
  local n = math.tointeger(tonumber(s or ""))
  if not n or n < 0 then r.fail(line, "%s: '%s' is not a whole number >= 0", what, shown(s or "")) end
  return n
end

-- 'Default target settings for worker ... 'End default target settings for worker
local function defaults(r, w)
  while true do
    local key, v, line = r.pair()
    if not key then r.fail(w.line, "worker '%s': no 'End default target settings for worker", shown(w.name)) end
    if same(key, "'End default target settings for worker") then return end
    local f = fields(v or "")
    if starts(key, "'Number of outstanding IOs") then
      w.qd = whole(r, f[1], line, "Number of outstanding IOs")
      if w.qd < 1 then r.fail(line, "worker '%s': 0 outstanding I/Os (at least 1)", shown(w.name)) end
      w.conn_rate = flag(r, f[2], line, "test connection rate")
      w.conn_rate_line = line
      if f[4] and f[4] ~= "" then
        if flag(r, f[4], line, "use fixed seed") then w.seed = whole(r, f[5], line, "fixed seed value") end
      end
    elseif starts(key, "'Disk maximum size,starting sector") then
      w.max_sectors = whole(r, f[1], line, "Disk maximum size")
      w.start_sector = whole(r, f[2], line, "starting sector")
      w.pattern = f[3] and f[3] ~= "" and whole(r, f[3], line, "Data pattern") or nil -- none before IOMeter 1.1
      if w.pattern and w.pattern > 2 then
        r.fail(line, "Data pattern: %d is not one of 0 (repeating bytes), 1 (pseudo random), 2 (full random)", w.pattern)
      end
      w.pattern_key = key:match(",([^,]*)$")
    elseif same(key, "'Local network interface") or same(key, "'VI outstanding IOs") then
      w.net_setting = true
    else
      r.fail(line, "worker '%s': unknown default target setting %s", shown(w.name), shown(key))
    end
  end
end

-- 'Assigned access specs ... 'End assigned access specs: names, in order.
local function assigned(r, w)
  w.specs = {}
  while true do
    local l, line = r.next()
    if l == nil then r.fail(w.line, "worker '%s': no 'End assigned access specs", shown(w.name)) end
    if same(l, "'End assigned access specs") then return end
    if l ~= "" then w.specs[#w.specs + 1] = { name = l, line = line } end
  end
end

-- 'Target assignments ... 'End target assignments
local function targets(r, w)
  w.targets = {}
  while true do
    local key, name, line = r.pair()
    if not key then r.fail(w.line, "worker '%s': no 'End target assignments", shown(w.name)) end
    if same(key, "'End target assignments") then return end
    if not same(key, "'Target") then r.fail(line, "expected 'Target or 'End target assignments, found %s", shown(key)) end
    local k2, kind, l2 = r.pair()
    if not k2 or not same(k2, "'Target type") then r.fail(l2 or line, "target '%s': expected 'Target type", shown(name)) end
    local t = { name = name, type = trim(kind):upper():gsub("%s", ""), line = line }
    -- a network target names its partner manager; then 'End target
    while true do
      local k3, _, l3 = r.pair()
      if not k3 then r.fail(line, "target '%s': no 'End target", shown(name)) end
      if same(k3, "'End target") then break end
      if not same(k3, "'Target manager ID, manager name") then
        r.fail(l3, "target '%s': unknown line %s", shown(name), shown(k3))
      end
    end
    w.targets[#w.targets + 1] = t
  end
end

-- 'Worker NAME ... 'End worker
local function worker(r, name, line)
  local w = { name = name, line = line, qd = 1, conn_rate = false, max_sectors = 0, start_sector = 0 }
  local key, kind = r.pair()
  if not key or not same(key, "'Worker type") then r.fail(line, "worker '%s': expected 'Worker type", shown(name)) end
  w.type = trim(kind):upper():gsub("%s", "")
  if w.type ~= "DISK" and not w.type:match("^NETWORK") then
    r.fail(line + 2, "worker '%s': type '%s' is neither DISK nor NETWORK", shown(name), shown(kind))
  end
  while true do
    local l, ln = r.next()
    if l == nil then r.fail(line, "worker '%s': no 'End worker", shown(name)) end
    if same(l, "'End worker") then return w end
    if same(l, "'Default target settings for worker") then defaults(r, w)
    elseif same(l, "'Assigned access specs") then assigned(r, w)
    elseif same(l, "'Target assignments") then targets(r, w)
    else r.fail(ln, "worker '%s': unknown line '%s'", shown(name), shown(l)) end
  end
end

--- The 'MANAGER LIST section: a list of managers { id, name, address,
-- line, workers = { worker, ... } }; each worker { name, type ("DISK",
-- "NETWORK,TCP", ...), line, qd, conn_rate, seed, max_sectors,
-- start_sector, pattern (0, 1, 2, or nil: none in the file), specs = nil | { {name, line}, ... }, targets =
-- nil | { {name, type, line}, ... } }. No section: an empty list.
function workers.manager_list(r)
  local list = {}
  if not r.skip_to("'MANAGER LIST") then return list end
  local m
  while true do
    local key, v, line = r.pair()
    if not key then r.fail(#r.lines, "the MANAGER LIST section has no 'END manager list") end
    if same(key, "'END manager list") then break
    elseif same(key, "'Manager ID, manager name") then
      local id, name = v:match("^%s*(%d+)%s*,%s*(.-)%s*$")
      m = { id = tonumber(id), name = name or v, line = line, workers = {}, address = "" }
      list[#list + 1] = m
    elseif same(key, "'Manager network address") then
      if m then m.address = v end
    elseif same(key, "'Worker") then
      if not m then r.fail(line, "a worker before any 'Manager ID, manager name") end
      m.workers[#m.workers + 1] = worker(r, v, line)
    elseif same(key, "'End manager") then
      m = nil
    else
      r.fail(line, "MANAGER LIST: unknown line %s", shown(key))
    end
  end
  return list
end

return workers
