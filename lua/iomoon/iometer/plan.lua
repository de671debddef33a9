-- iomoon.iometer.plan: a parsed IOMeter .icf file (iomoon.iometer.parse)
-- turned into iomoon phases: what iomoon cannot do is named (or skipped),
-- the tests are expanded as IOMeter's cycling runs them, and each test
-- becomes one phase (one stream per worker when its workers differ).
--
-- A phase's targets are indexes into the file's disk targets until
-- plan.resolve puts --target's paths in their places (plan.targets).

local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local util = require "iomoon.util"

local plan = {}

local input_error = errors.input
local shown = util.shown

-- IOMeter's test types (the file's 'Test Type: a name or its number):
-- plan.TEST_TYPE maps a name to its number, plan.TEST_TYPES a number to its name.
plan.TEST_TYPE = { NORMAL = 0, CYCLE_TARGETS = 1, CYCLE_WORKERS = 2, INCREMENT_TARGETS_PARALLEL = 3,
  INCREMENT_TARGETS_SERIAL = 4, CYCLE_WORKERS_AND_TARGETS = 5, CYCLE_OUTSTANDING_IOS = 6,
  CYCLE_OUTSTANDING_IOS_AND_TARGETS = 7 }
plan.TEST_TYPES = {}
for k, v in pairs(plan.TEST_TYPE) do plan.TEST_TYPES[v] = k end

-- IOMeter's sectors (its disk size and starting sector count 512 bytes)
plan.SECTOR = 512
-- what iomoon runs at most in one phase
local MAX_STREAMS, MAX_TESTS = 16, 10000

-- The unsupported things of the file, each {line =, what =}, in file order.
local function unsupported(model)
  local out = {}
  local function add(line, fmt, ...) out[#out + 1] = { line = line, what = string.format(fmt, ...) }; return out[#out] end
  for _, m in ipairs(model.managers) do
    for _, w in ipairs(m.workers) do
      if w.type ~= "DISK" then
        add(w.line, "worker '%s': a network worker (%s)", shown(w.name), w.type)
      else
        if w.conn_rate then add(w.conn_rate_line, "worker '%s': test connection rate ENABLED", shown(w.name)) end
        for _, t in ipairs(w.targets or {}) do
          if t.type ~= "DISK" then add(t.line, "worker '%s': target '%s' of type %s", shown(w.name), shown(t.name), t.type) end
        end
      end
    end
  end
  for _, s in ipairs(model.specs.list) do
    local d, b = s.lines[1].delay, s.lines[1].burst
    for _, l in ipairs(s.lines) do
      if l.reply ~= 0 then
        add(l.line, "access spec '%s': reply size %d (replies are network I/O)", shown(s.name), l.reply).spec = s.name
      end
      if l.delay ~= d or (d > 0 and l.burst ~= b) then
        add(l.line, "access spec '%s': lines with different delay or burst (iomoon paces a whole mix)",
          shown(s.name)).spec = s.name
        break
      end
    end
  end
  table.sort(out, function(a, b) return a.line < b.line end)
  return out
end

-- The specs a worker runs, in order: its assigned list, or, without one,
-- the specs assigned by default to all workers or to disk workers.
local function worker_specs(model, w, bad_specs)
  local names = {}
  if w.specs then
    for _, s in ipairs(w.specs) do
      if not model.specs.by_name[s.name] and s.name:lower() ~= "idle" then
        local known = {}
        for _, x in ipairs(model.specs.list) do known[#known + 1] = "'" .. shown(x.name) .. "'" end
        input_error("%s:%d: worker '%s' is assigned access spec '%s', which the file does not define (defined: %s)",
          shown(model.path), s.line, shown(w.name), shown(s.name), #known > 0 and table.concat(known, ", ") or "none")
      end
      names[#names + 1] = s.name
    end
  else
    for _, s in ipairs(model.specs.list) do
      if s.assign == "ALL" or s.assign == "DISK" then names[#names + 1] = s.name end
    end
  end
  for i, n in ipairs(names) do
    if bad_specs[n] then names[i] = "Idle" end -- skipped: the worker idles for that test
  end
  return names
end

--- The manager whose workers this process runs: the one --manager names
-- (o.manager), else the only one with workers (a manager without any,
-- IOMeter's GUI host, is ignored), else under mpirun manager k on rank
-- k - 1 when there are as many ranks as managers with workers. Returns
-- it (nil: the file lists none) and the managers with workers.
function plan.manager(model, o)
  local active = {}
  for _, m in ipairs(model.managers) do if #m.workers > 0 then active[#active + 1] = m end end
  local names = {}
  for i, m in ipairs(active) do names[i] = "'" .. shown(m.name) .. "'" end
  if o.manager then
    for _, m in ipairs(model.managers) do
      if m.name == o.manager then
        if #m.workers == 0 then
          input_error("--manager: '%s' has no workers (managers with workers: %s)", shown(o.manager),
            #names > 0 and table.concat(names, ", ") or "none")
        end
        return m, active
      end
    end
    input_error("--manager: '%s' is not a manager of %s (managers with workers: %s)", shown(o.manager),
      shown(model.path), #names > 0 and table.concat(names, ", ") or "none")
  end
  if #active <= 1 then return active[1], active end
  if o.converting then
    input_error("%s: %d managers have workers (%s): a converted suite runs one manager's; pick it with --manager NAME "
      .. "(the .icf itself runs them all under mpirun -n %d)", shown(model.path), #active, table.concat(names, ", "), #active)
  end
  local c = iomoon.cluster
  if c.on and c.ranks == #active then return active[c.rank + 1], active end
  input_error("%s: %d managers have workers (%s): run it under mpirun -n %d (manager k on rank k-1, in the file's "
    .. "order)%s, or pick one to run here with --manager NAME", shown(model.path), #active, table.concat(names, ", "),
    #active, c.on and string.format(", not %d ranks", c.ranks) or "")
end

-- IOMeter's 'Default Disk Workers to Spawn: a number, or NUMBER_OF_CPUS
-- (this machine's cores); 1 when the file does not say.
local function spawned(model)
  local v = model.setup.spawn_disk
  if v == nil then return 1 end
  if v == "NUMBER_OF_CPUS" then return math.max(1, iomoon.machine().cores or 1) end
  return math.max(1, v)
end

-- The disk workers that run: { name, qd, seed, region, specs, targets =
-- {index, ...} }, and the file's disk target names in order. m: the
-- manager (plan.manager), or nil for a file without a manager list;
-- names and index (name -> its place), when given, are the targets of
-- other managers before it (under mpirun --target lists every manager's).
local function disk_workers(model, skipped_specs, m, names, index)
  local list = {}
  names, index = names or {}, index or {}
  if m == nil then -- no manager list: the workers IOMeter's GUI would spawn, all on one target
    m = { workers = {} }
    for i = 1, spawned(model) do
      m.workers[i] = { name = "Worker " .. i, type = "DISK", qd = 1, max_sectors = 0, start_sector = 0,
        targets = { { name = "(target)", type = "DISK" } } }
    end
  end
  for _, w in ipairs(m.workers) do
    if w.type == "DISK" then
      local x = { name = w.name, qd = w.qd, seed = w.seed, specs = worker_specs(model, w, skipped_specs),
        targets = {}, pattern = w.pattern }
      if w.max_sectors > 0 or w.start_sector > 0 then
        x.region = { offset = w.start_sector * plan.SECTOR, size = w.max_sectors > 0 and w.max_sectors * plan.SECTOR or nil }
      end
      for _, t in ipairs(w.targets or {}) do
        if t.type == "DISK" then
          if not index[t.name] then names[#names + 1] = t.name; index[t.name] = #names end
          x.targets[#x.targets + 1] = index[t.name]
        end
      end
      list[#list + 1] = x
    end
  end
  return list, names
end

-- The next value of a cycle after v (k-th step): linear adds the step,
-- exponential is start x step^k (IOMeter: start * (int)powf(step, k)).
local function next_value(c, v, k)
  if not c.exponential or c.step == 1 then return v + c.step end
  return c.start * math.floor(c.step ^ k)
end

-- Each worker runs min(n, its targets) of its targets: the list of tests
-- for counts n of the cycle c, while the active total grows.
local function cycle_counts(c, count_of)
  local out, n, k, last = {}, c.start, 1, 0
  while #out < MAX_TESTS do
    local total = count_of(n)
    if total <= last then break end
    out[#out + 1] = n
    last = total
    n = next_value(c, n, k)
    k = k + 1
  end
  return out
end

local function queue_depths(q)
  local out, v, k = {}, q.start, 1
  while v <= q["end"] and #out <= MAX_TESTS do -- one past the cap: refused below, never cut silently
    out[#out + 1] = v
    v = next_value(q, v, k)
    k = k + 1
  end
  return out
end

-- One test: { {worker, spec name, qd, targets = {index...}}, ... }
local function test_of(active, n_workers, n_targets, qd, spread)
  local t, left = {}, n_targets
  for i, a in ipairs(active) do
    if n_workers and i > n_workers then break end
    local k = #a.w.targets
    if spread then k = math.min(k, left); left = left - k
    elseif n_targets then k = math.min(k, n_targets) end
    if k > 0 then
      t[#t + 1] = { w = a.w, spec = a.spec, qd = qd or a.w.qd, targets = { table.unpack(a.w.targets, 1, k) } }
    end
  end
  return t
end

-- The tests of one access-spec index, as the setup's test type cycles them.
local function tests_of(setup, active)
  local out, ty = {}, setup.type
  local max_t = 0
  for _, a in ipairs(active) do max_t = math.max(max_t, #a.w.targets) end
  local function count(t) local n = 0; for _, x in ipairs(t) do n = n + #x.targets end; return n end
  if ty == 1 or ty == 3 or ty == 4 then -- cycle targets on each worker, or spread down the workers
    local spread = ty ~= 1
    for _, n in ipairs(cycle_counts(setup.targets, function(n) return count(test_of(active, nil, n, nil, spread)) end)) do
      out[#out + 1] = test_of(active, nil, n, nil, spread)
    end
  elseif ty == 2 or ty == 5 then -- cycle workers (and, within each, targets)
    for _, w in ipairs(cycle_counts(setup.workers, function(w) return #test_of(active, w) end)) do
      if ty == 2 then out[#out + 1] = test_of(active, w)
      else
        for _, n in ipairs(cycle_counts(setup.targets, function(n) return count(test_of(active, w, n)) end)) do
          out[#out + 1] = test_of(active, w, n)
        end
      end
    end
  elseif ty == 6 or ty == 7 then -- cycle queue depth (within each count of targets)
    local counts = ty == 7 and cycle_counts(setup.targets, function(n) return count(test_of(active, nil, n)) end)
      or { false }
    for _, n in ipairs(counts) do
      for _, q in ipairs(queue_depths(setup.queue)) do out[#out + 1] = test_of(active, nil, n or nil, q) end
    end
  else
    out[1] = test_of(active)
  end
  return out
end

-- The mix, think and name of an access spec.
local function spec_fields(spec)
  local mix = {}
  for _, l in ipairs(spec.lines) do
    if l.of_size > 0 then
      mix[#mix + 1] = { bs = l.size, read = l.reads, random = l.random, weight = l.of_size,
        align = l.align > 0 and l.align or nil }
    end
  end
  local first, think = spec.lines[1], nil
  if first.delay > 0 then think = { burst = math.max(1, first.burst), delay = first.delay .. "ms" } end
  return mix, think
end

local function same_region(a, b)
  if a == nil or b == nil then return a == b end
  return a.offset == b.offset and a.size == b.size
end

-- IOMeter's data patterns ('Disk maximum size,starting sector,Data
-- pattern): 0 repeating bytes (its default), 1 pseudo random (one buffer
-- for every write, IOMeter up to 2006.07.27), 2 full random. None in the
-- file: iomoon's own random.
local PATTERNS = { [0] = "repeat", [1] = "reuse", [2] = "random" }

-- The phase of one test: one phase when its workers run the same spec at
-- the same queue depth on targets of their own, else one stream per worker.
-- Targets stay indexes (`targets`) until plan.resolve.
local function phase_of(model, test, info)
  local specs = model.specs.by_name
  local first = test[1]
  local uniform, seen = true, {}
  for _, x in ipairs(test) do
    if x.spec ~= first.spec or x.qd ~= first.qd or not same_region(x.w.region, first.w.region)
      or x.w.pattern ~= first.w.pattern then uniform = false end
    for _, t in ipairs(x.targets) do
      if seen[t] then uniform = false end
      seen[t] = true
    end
  end
  local names, name_seen, disks, seed = {}, {}, 0, nil
  for _, x in ipairs(test) do
    if not name_seen[x.spec] then names[#names + 1] = x.spec; name_seen[x.spec] = true end
    disks = disks + #x.targets
    seed = seed or x.w.seed
  end
  local name = table.concat(names, " + ")
  if #name > 120 then name = name:sub(1, 117) .. "..." end -- a phase's name holds 127 bytes (and a suffix)
  local p = { name = name, seed = seed,
    meta = { spec = names[1], iometer = util.merge(info, { workers = #test, disks = disks,
      qd = uniform and first.qd or nil, worker_names = {} }) } }
  for i, x in ipairs(test) do p.meta.iometer.worker_names[i] = x.w.name end
  if uniform then
    local all = {}
    for _, x in ipairs(test) do for _, t in ipairs(x.targets) do all[#all + 1] = t end end
    p.mix, p.think = spec_fields(specs[first.spec])
    p.qd, p.workers, p.targets, p.region = first.qd, #all, all, first.w.region
    p.pattern = PATTERNS[first.w.pattern]
  else
    if #test > MAX_STREAMS then return nil, #test end
    -- the phase's own target is every stream's (else a suite's --target would be)
    p.targets = {}
    for t in pairs(seen) do p.targets[#p.targets + 1] = t end
    table.sort(p.targets)
    p.streams = {}
    for i, x in ipairs(test) do
      local st = { name = x.w.name, qd = x.qd, workers = #x.targets, targets = x.targets, region = x.w.region,
        pattern = PATTERNS[x.w.pattern] }
      st.mix, st.think = spec_fields(specs[x.spec])
      p.streams[i] = st
    end
  end
  return p
end

-- Cycled tests of one name get what varies among them in their names:
-- "4K Read (QD 8)", "(2 workers, 3 disks)" (as results.csv's # Workers,
-- # Disks and Queue Depth columns say it; iomoon.iometer.results names the
-- sheet's rows the same way).
function plan.suffix_names(list, get)
  local groups, order = {}, {}
  for _, p in ipairs(list) do
    local n = get(p).name
    if not groups[n] then groups[n] = {}; order[#order + 1] = n end
    table.insert(groups[n], p)
  end
  for _, n in ipairs(order) do
    local g = groups[n]
    if #g > 1 then
      local vary = {}
      for _, k in ipairs({ "workers", "disks", "qd" }) do
        for _, p in ipairs(g) do if get(p)[k] ~= get(g[1])[k] then vary[k] = true end end
      end
      for _, p in ipairs(g) do
        local v, parts = get(p), {}
        if vary.workers then parts[#parts + 1] = string.format("%d worker%s", v.workers, v.workers == 1 and "" or "s") end
        if vary.disks then parts[#parts + 1] = string.format("%d disk%s", v.disks, v.disks == 1 and "" or "s") end
        if vary.qd and v.qd then parts[#parts + 1] = "QD " .. v.qd end
        if #parts > 0 then v.set(n .. " (" .. table.concat(parts, ", ") .. ")") end
      end
    end
  end
end

-- The tests of the whole file, in IOMeter's order: the k-th access spec
-- of every worker, k = 1, 2, ...; then the steps of the cycle.
local function all_tests(model, dws)
  local tests, n_access = {}, 0
  for _, w in ipairs(dws) do n_access = math.max(n_access, #w.specs) end
  for k = 1, n_access do
    local active = {}
    for _, w in ipairs(dws) do
      local s = w.specs[k]
      if s and s:lower() ~= "idle" and #w.targets > 0 then active[#active + 1] = { w = w, spec = s } end
    end
    if #active > 0 then
      for _, t in ipairs(tests_of(model.setup, active)) do
        if #t > 0 then tests[#tests + 1] = { test = t, access_index = k } end
        if #tests > MAX_TESTS then
          input_error("%s: the cycling makes more than %d tests", shown(model.path), MAX_TESTS)
        end
      end
    end
  end
  return tests
end

-- The unsupported things: one input error naming them all, or, with
-- skip, the list of what was skipped and the specs dropped.
local function refuse_or_skip(model, skip)
  local bad = unsupported(model)
  local skipped, bad_specs = {}, {}
  if #bad == 0 then return skipped, bad_specs end
  local parts = {}
  for _, b in ipairs(bad) do
    parts[#parts + 1] = string.format("line %d: %s", b.line, b.what)
    skipped[#skipped + 1] = string.format("line %d: %s", b.line, b.what)
    if b.spec then bad_specs[b.spec] = true end
  end
  if not skip then
    input_error("%s: iomoon does not do %s (--skip-unsupported runs the rest and lists these in each result's "
      .. "meta.iometer.skipped)", shown(model.path), table.concat(parts, "; "))
  end
  return skipped, bad_specs
end

-- The phases of one manager's disk workers dws: one per test, named.
local function phases_of(model, dws, skipped)
  local phases = {}
  for i, t in ipairs(all_tests(model, dws)) do
    local info = { test = i, access_index = t.access_index, test_type = plan.TEST_TYPES[model.setup.type] }
    local p, n = phase_of(model, t.test, info)
    if not p then
      input_error("%s: test %d runs %d workers with different access specs; iomoon runs at most %d streams in a phase",
        shown(model.path), i, n, MAX_STREAMS)
    end
    if #skipped > 0 then p.meta.iometer.skipped = skipped end
    phases[#phases + 1] = p
  end
  if #phases == 0 then
    input_error("%s: no test to run (no disk worker has both an access spec and a target)", shown(model.path))
  end
  plan.suffix_names(phases, function(p)
    local m = p.meta.iometer
    return { name = p.name, workers = m.workers, disks = m.disks, qd = m.qd, set = function(n) p.name = n end }
  end)
  return phases
end

--- The plan of a parsed file: { name, description, source, size,
-- name_width, defaults, target_names, tests = phase templates, skipped }.
-- o.skip_unsupported: skip what iomoon cannot do instead of refusing.
function plan.plan(model, o)
  local skipped, bad_specs = refuse_or_skip(model, o.skip_unsupported)
  local manager, active = plan.manager(model, o)
  local dws, target_names
  if #active > 1 and not o.manager then
    -- under mpirun: --target lists the disk targets of every manager, in
    -- the file's order; this rank's are its manager's
    local names, index, per = {}, {}, {}
    for i, m in ipairs(active) do per[i] = disk_workers(model, bad_specs, m, names, index) end
    for i, m in ipairs(active) do if m == manager then dws = per[i] end end
    target_names = names
  else
    dws, target_names = disk_workers(model, bad_specs, manager)
  end
  local phases = phases_of(model, dws, skipped)
  if #active > 1 and not o.manager then
    -- every rank must run the same tests, named alike, of as many streams,
    -- or the barrier waits forever: said before anything runs
    for _, m in ipairs(active) do
      local other = phases_of(model, (disk_workers(model, bad_specs, m)), skipped)
      local why
      if #other ~= #phases then why = string.format("runs %d tests, '%s' %d", #other, shown(manager.name), #phases) end
      for i = 1, math.min(#other, #phases) do
        local a, b = other[i], phases[i]
        if why then break end
        if a.name ~= b.name then why = string.format("names test %d '%s', not '%s'", i, shown(a.name), shown(b.name))
        elseif #(a.streams or {}) ~= #(b.streams or {}) then
          why = string.format("runs test %d as %d streams, '%s' as %d (workers whose settings differ are streams)", i,
            #(a.streams or {}), shown(manager.name), #(b.streams or {}))
        end
      end
      if why then
        input_error("%s: under mpirun every manager runs the same tests: manager '%s' %s (give the managers alike "
          .. "workers, or run each with --manager NAME)", shown(model.path), shown(m.name), why)
      end
    end
  end
  local reach, width = 0, 24
  for _, w in ipairs(dws) do
    if w.region and w.region.size then reach = math.max(reach, w.region.offset + w.region.size) end
  end
  for _, p in ipairs(phases) do width = math.max(width, math.min(#p.name + 2, 60)) end
  local file = model.path:match("[^/]*$")
  local base = file:gsub("%.[iI][cC][fF]$", "")
  local setup = model.setup
  return {
    name = base, file = file, version = model.version.text, setup = setup,
    description = setup.description ~= "" and setup.description
      or string.format("IOMeter %s: %d test%s", file, #phases, #phases == 1 and "" or "s"),
    source = string.format("%s (IOMeter Version %s)", file, model.version.text),
    size = reach > 0 and reach or "1g", name_width = width,
    defaults = { duration = setup.run_s > 0 and setup.run_s .. "s" or nil, ramp = setup.ramp_s .. "s" },
    target_names = target_names, tests = phases, skipped = skipped, workers = dws,
  }
end

-- s split at commas
local function split(s)
  local out = {}
  for p in (s .. ","):gmatch("([^,]*),") do out[#out + 1] = p end
  return out
end

--- --target's paths in the places of the file's disk targets: a function
-- T(list of indexes) giving the phase's `target` (one target, or a list),
-- or nil without a target (the null and sim engines' region). opts.target
-- is a path ("a,b" for two: one per disk target of the file, in the file's
-- order), an option table whose path is such a list, or a target object
-- (one). `default_size`: the suite's size, kept only for paths that do
-- not exist yet (an existing file is used at its size unless --size said
-- otherwise).
function plan.targets(opts, names, default_size)
  local t = opts and opts.target
  if t == nil then return function() return nil end end
  if type(t) == "userdata" then
    if #names > 1 then
      input_error("target: the file has %d disk targets; give as many paths (\"a,b\")", #names)
    end
    return function() return t end
  end
  local base = type(t) == "table" and t or { path = t }
  local paths = split(tostring(base.path))
  if #paths ~= #names then
    local q = {}
    for i, n in ipairs(names) do q[i] = shown(n) end
    input_error("--target: the file names %d disk target%s (%s); give %s "
      .. "(got %d)", #names, #names == 1 and "" or "s", table.concat(q, ", "),
      #names == 1 and "one path" or #names .. " paths separated by commas, in that order", #paths)
  end
  local list = {}
  for i, p in ipairs(paths) do
    if p == "" then input_error("--target: path %d of '%s' is empty", i, shown(base.path)) end
    local x = util.copy(base)
    x.path = p
    if x.size ~= nil and tostring(x.size) == tostring(default_size) and iomoon.stat(p) then x.size = nil end
    if next(x, next(x)) == nil then x = p end -- nothing but the path
    list[i] = x
  end
  return function(idx)
    if #idx == 1 then return list[idx[1]] end
    local out = {}
    for i, k in ipairs(idx) do out[i] = list[k] end
    return out
  end
end

-- IOMeter's maximum disk size is a cap: on a smaller target, to its end.
local function capped(region, area)
  if not region or not region.size or not area or region.offset + region.size <= area then return region end
  if region.offset >= area then return region end -- refused by the phase's check, naming the offset
  return { offset = region.offset, size = area - region.offset }
end

local function resolve_one(p, T, area)
  local c = util.copy(p)
  if c.targets then c.target = T(c.targets) end
  c.targets = nil
  c.region = capped(c.region, area)
  return c
end

--- The phases of templates with T's targets in place of the indexes (a
-- deep enough copy: the templates are kept); regions end at `area` bytes
-- (the test area's size, when known).
function plan.resolve(tests, T, area)
  local out = {}
  for i, p in ipairs(tests) do
    local c = resolve_one(p, T, area)
    if c.streams then
      c.streams = {}
      for j, st in ipairs(p.streams) do c.streams[j] = resolve_one(st, T, area) end
    end
    c.meta = util.copy(p.meta)
    out[i] = c
  end
  return out
end

return plan
