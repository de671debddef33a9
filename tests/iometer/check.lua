-- IOMeter .icf files and results.csv, field by field (run by tests/79-iometer.t):
-- iomoon run check.lua DIR TMP
local tap = dofile(arg[1] .. "/../tap.lua")
local iometer = require "iomoon.iometer"
local suite = require "iomoon.suite"
local dir, tmp = arg[1], arg[2]

local function read(name) return iometer.read(dir .. "/" .. name) end
local function text(name)
  local f = assert(io.open(dir .. "/" .. name, "rb"))
  local s = f:read("a")
  f:close()
  return s
end
local function plan_of(s, o) return iometer.plan(iometer.parse(s, "x.icf"), o or {}) end
local function names(p)
  local out = {}
  for i, t in ipairs(p.tests) do out[i] = t.name end
  return table.concat(out, "|")
end

-- ---- OpenPerformanceTest.icf (Version 1.1.0), field by field ----
local m = read("openperformancetest.icf")
tap.ok(m.version.text == "1.1.0" and m.version.number == 10000100000, "version 1.1.0 (%s)", m.version.text)
tap.ok(m.setup.run_s == 300 and m.setup.ramp_s == 0 and m.setup.type == 0, "run 5 min, ramp 0, NORMAL")
tap.ok(m.setup.queue.start == 1 and m.setup.queue["end"] == 32 and m.setup.queue.step == 2 and m.setup.queue.exponential,
  "queue depth cycling 1..32 x2 exponential read")
tap.ok(#m.specs.list == 4 and m.specs.list[2].name == "RealLife-60%Rand-65%Read", "four access specs, by name")
local l = m.specs.by_name["RealLife-60%Rand-65%Read"].lines[1]
tap.ok(l.size == 8192 and l.of_size == 100 and l.reads == 65 and l.random == 60 and l.delay == 0 and l.burst == 1
  and l.align == 0 and l.reply == 0, "spec line: size, %% of size, %% reads, %% random, delay, burst, align, reply")
local w = m.managers[1].workers[1]
tap.ok(m.managers[1].name == "VMGUEST" and w.name == "Worker 1" and w.type == "DISK" and w.qd == 64
  and w.max_sectors == 8000000 and w.start_sector == 0 and #w.specs == 4 and w.targets[1].name == 'E: "New Volume"',
  "manager, worker, outstanding I/Os, disk size, assigned specs and target read")
local p = iometer.plan(m, {})
local t1 = p.tests[1]
tap.ok(#p.tests == 4 and t1.name == "Max Throughput-100%Read" and t1.qd == 64 and t1.workers == 1
  and t1.mix[1].bs == 32768 and t1.mix[1].read == 100 and t1.mix[1].random == 0 and t1.region.size == 8000000 * 512
  and t1.meta.spec == "Max Throughput-100%Read" and p.defaults.duration == "300s", "OpenPerformanceTest: 4 phases as the seed's")

-- as Windows writes it: CRLF line ends, a byte order mark
local crlf = plan_of("\239\187\191" .. text("openperformancetest.icf"):gsub("\n", "\r\n"))
local lf = plan_of(text("openperformancetest.icf"))
tap.ok(#crlf.tests == 4 and crlf.tests[4].name == lf.tests[4].name and crlf.target_names[1] == 'E: "New Volume"',
  "CRLF line ends and a byte order mark read the same")

-- ---- cycling.icf (Version 2006.07.27: three-field worker settings, no data pattern) ----
m = read("cycling.icf")
tap.ok(m.version.number == 20060727 and m.setup.type == 6 and m.setup.ramp_s == 5 and m.setup.run_s == 30,
  "2006.07.27: CYCLE_OUTSTANDING_IOS, ramp 5 s, run 30 s")
p = iometer.plan(m, {})
tap.ok(names(p) == "File Server (QD 1)|File Server (QD 2)|File Server (QD 4)|File Server (QD 8)|"
  .. "Paced 8K (QD 1)|Paced 8K (QD 2)|Paced 8K (QD 4)|Paced 8K (QD 8)", "queue depth 1..8 x2 per spec, DISK defaults "
  .. "assigned, NONE not: %s", names(p))
local fs = p.tests[3]
tap.ok(fs.qd == 4 and #fs.mix == 3 and fs.mix[1].bs == 512 and fs.mix[1].weight == 10 and fs.mix[2].align == 4096
  and fs.mix[2].weight == 60 and fs.mix[3].bs == 65536 and fs.mix[3].weight == 30 and fs.mix[3].read == 80,
  "a multi-line spec is a weighted mix (align kept where given)")
tap.ok(fs.region.offset == 2048 * 512 and fs.region.size == 32768 * 512 and p.size == (2048 + 32768) * 512,
  "disk maximum size and starting sector: the region, and the size of a new file")
local pc = p.tests[5]
tap.ok(pc.think and pc.think.burst == 16 and pc.think.delay == "20ms" and pc.mix[1].read == 0,
  "delay 20 ms, burst 16: think")

-- ---- the cycling counts of every test type ----
local s = text("cycling.icf")
local function count(from, to)
  local ok, q = pcall(plan_of, (s:gsub("\t1          8          2          EXPONENTIAL", "\t" .. from, 1)), {})
  if not ok then return tostring(q) end
  return #q.tests
end
tap.ok(count("1 256 2 EXPONENTIAL") == 18, "1..256 x2: 9 steps per spec (%s)", count("1 256 2 EXPONENTIAL"))
tap.ok(count("1 32 8 LINEAR") == 8, "1..32 +8: 1, 9, 17, 25 (%s)", count("1 32 8 LINEAR"))
tap.ok(count("2 100 3 EXPONENTIAL") == 8, "2..100 x3: 2 x 3^k: 2, 6, 18, 54 (162 stops) (%s)", count("2 100 3 EXPONENTIAL"))
local ws = text("workers.icf")
local function wtype(ty)
  local ok, q = pcall(plan_of, (ws:gsub("\tCYCLE_TARGETS\n", "\t" .. ty .. "\n")))
  if not ok then return tostring(q) end
  return names(q)
end
tap.ok(wtype("CYCLE_TARGETS") == "4K; 100% Read; 0% random (2 disks)|4K; 100% Read; 0% random (3 disks)|"
  .. "64K; 0% Read; 100% random", "CYCLE_TARGETS: 1 then 2 targets per worker, until none is added: %s", wtype("CYCLE_TARGETS"))
tap.ok(wtype("CYCLE_WORKERS") == "4K; 100% Read; 0% random (1 worker, 2 disks, QD 4)|4K; 100% Read; 0% random (2 workers, 3 disks)|"
  .. "64K; 0% Read; 100% random", "CYCLE_WORKERS: 1 then 2 workers: %s", wtype("CYCLE_WORKERS"))
tap.ok(wtype("INCREMENT_TARGETS_SERIAL") == "4K; 100% Read; 0% random (1 worker, 1 disk, QD 4)|"
  .. "4K; 100% Read; 0% random (1 worker, 2 disks, QD 4)|4K; 100% Read; 0% random (2 workers, 3 disks)|64K; 0% Read; 100% random",
  "INCREMENT_TARGETS_SERIAL: one more target down the workers each step: %s", wtype("INCREMENT_TARGETS_SERIAL"))
tap.ok(select(2, wtype("CYCLE_WORKERS_AND_TARGETS"):gsub("|", "")) == 4,
  "CYCLE_WORKERS_AND_TARGETS: (1 worker: 1, 2 targets), (2 workers: 2, 3 targets), then spec 2: %s",
  wtype("CYCLE_WORKERS_AND_TARGETS"))
tap.ok(select(2, wtype("CYCLE_OUTSTANDING_IOS_AND_TARGETS"):gsub("|", "")) + 1 == 18,
  "CYCLE_OUTSTANDING_IOS_AND_TARGETS: 6 queue depths x (2 target counts of spec 1 + 1 of spec 2): %s",
  wtype("CYCLE_OUTSTANDING_IOS_AND_TARGETS"))

-- ---- several workers and targets ----
p = plan_of(ws)
local a, b = p.tests[1], p.tests[2]
tap.ok(#p.target_names == 3 and p.target_names[3] == "sdd", "three disk targets, in file order")
tap.ok(a.streams and #a.streams == 2 and a.streams[1].name == "Worker 1" and a.streams[1].qd == 4
  and a.streams[1].workers == 1 and a.streams[1].targets[1] == 1 and a.streams[2].qd == 8
  and a.streams[2].targets[1] == 3 and a.seed == 42, "workers with different queue depths: a stream each, fixed seed 42")
tap.ok(b.streams[1].workers == 2 and b.streams[1].targets[2] == 2 and b.meta.iometer.disks == 3,
  "the next step: worker 1 on 2 targets")
tap.ok(p.tests[3].streams == nil and p.tests[3].qd == 8 and p.tests[3].targets[1] == 3,
  "'Idle' for worker 1: worker 2 alone, a plain phase")
local T = iometer.targets({ target = { path = "a.dat,b.dat,c.dat", size = "8m" } }, p.target_names, p.size)
local got = T({ 1, 3 })
tap.ok(got[1].path == "a.dat" and got[2].path == "c.dat" and got[2].size == "8m", "--target a,b,c maps onto the targets")
tap.refuses("give 3 paths separated by commas", function() iometer.targets({ target = "a.dat" }, p.target_names) end,
  "a --target list that does not fit")

-- ---- bad input ----
tap.refuses("x.icf:1: version 1998.01.05", function() plan_of("Version 1998.01.05\n") end, "a version before named specs")
tap.refuses("not an IOMeter file", function() plan_of("hello\n") end, "a file that is not IOMeter's")
tap.refuses("x.icf:30: access spec '4K; 100%% Read; 0%% random': its %% of size add up to 90",
  function() plan_of((ws:gsub("\t4096,100,100,0,0,1,0,0", "\t4096,90,100,0,0,1,0,0"))) end, "percentages not adding to 100")
tap.refuses("which the file does not define", function() plan_of((ws:gsub("\tIdle\n", "\tNo Such Spec\n"))) end,
  "an assigned spec that is not defined")
tap.refuses("Test Type: 'SOMETIMES'", function() plan_of((ws:gsub("\tCYCLE_TARGETS\n", "\tSOMETIMES\n"))) end,
  "an unknown test type")
tap.refuses("iomoon does not do line %d+: access spec .*reply size 512.*worker 'Net 1': a network worker",
  function() read("network.icf"); iometer.plan(read("network.icf"), {}) end, "network worker and reply, in one error")
p = iometer.plan(read("network.icf"), { skip_unsupported = true })
tap.ok(#p.tests == 1 and #p.tests[1].meta.iometer.skipped == 2, "--skip-unsupported: the rest, the skipped listed")

-- ---- convert round trip: the Lua suite's phases are the .icf's ----
local function deep_eq(x, y, path)
  if type(x) ~= type(y) then return false, path end
  if type(x) ~= "table" then return x == y, path end
  for k, v in pairs(x) do
    local ok, where = deep_eq(v, y[k], path .. "." .. tostring(k))
    if not ok then return false, where end
  end
  for k in pairs(y) do if x[k] == nil then return false, path .. "." .. tostring(k) end end
  return true
end
for _, f in ipairs({ "openperformancetest", "cycling", "workers" }) do
  local icf = suite.load(dir .. "/" .. f .. ".icf")
  local out = tmp .. "/" .. f .. ".lua"
  local fh = assert(io.open(out, "wb"))
  fh:write(require("iomoon.iometer.convert").lua(iometer.plan(iometer.read(dir .. "/" .. f .. ".icf"), {}), f .. ".icf"))
  fh:close()
  local lua = suite.load(out)
  local paths = f == "workers" and "a.dat,b.dat,c.dat" or "a.dat"
  for _, opts in ipairs({ { target = { path = paths, size = "64m" } }, { region = "1g" } }) do
    local pa, pb = suite.phases(icf, { target = opts.target, region = opts.region }),
      suite.phases(lua, { target = opts.target, region = opts.region })
    local ok, where = deep_eq(pa, pb, "phases")
    tap.ok(ok and #pa > 0, "convert %s: the Lua suite gives the .icf's %d phases, field by field%s", f, #pa,
      ok and "" or " (differs at " .. tostring(where) .. ")")
  end
  tap.ok(lua.name == icf.name and lua.size == icf.size and deep_eq(lua.defaults, icf.defaults, ""),
    "convert %s: name, size and defaults kept", f)
end

-- ---- results.csv ----
local doc = iometer.load_results(dir .. "/results.csv", text("results.csv"))
local r1, r4 = doc.phases[1], doc.phases[4]
tap.ok(#doc.phases == 4 and r1.name == "Max Throughput-100%Read" and math.abs(r1.iops - 6380.12) < 1e-6
  and math.abs(r1.mib_per_s - 199.377) < 0.01 and math.abs(r1.lat.mean_ns - 10.03e6) < 1
  and math.abs(r1.lat.max_ns - 95.2e6) < 1 and r1.cpu.util_pct == 33 and r1.qd == 64 and r1.workers == 1
  and r1.errors == 0 and r1.target == "E:" and r1.read.ios == 1914036, "results.csv ALL row: name, IOPS, MiB/s, "
  .. "latency ms -> ns, max, CPU, QD, workers, errors, I/Os")
tap.ok(r4.streams and #r4.streams == 2 and r4.streams[2].name == "Worker 2" and r4.streams[2].target == "F:"
  and math.abs(r4.streams[1].iops + r4.streams[2].iops - r4.iops) < 0.01, "WORKER rows: streams, their disks")
tap.ok(doc.machine.hostname == "VMGUEST" and doc.machine.cores == 2 and doc.iomoon == "IOMeter 1.1.0",
  "the MANAGER and PROCESSOR rows: host and CPUs")
tap.near(r1.lat.p50_ns, 11e6, 0.01e6, "p50 estimated from the latency bins (40 %% in 5-10 ms, 50 %% in 10-15 ms)")
tap.ok(r1.lat.p50_ns <= r1.lat.p99_ns and r1.lat.p9999_ns <= r1.lat.max_ns
  and r1.meta.iometer.percentiles == "estimated from the latency bins", "percentiles ordered, capped at the maximum")
-- the 2006 layout: "MBps" (binary, no decimal), no latency bins
local old = iometer.load_results("old.csv", table.concat({ "'Version", "2006.07.27", "'Results",
  "'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,Read IOps,Write IOps,MBps,"
  .. "Read MBps,Write MBps,Transactions per Second,Average Response Time,Maximum Response Time,Errors,Read I/Os,"
  .. "Write I/Os,Queue Depth,% CPU Utilization",
  "ALL,All,512B; 100% Read; 0% random,1,1,1,20000,20000,0,9.765625,9.765625,0,20000,0.05,2.5,0,200000,0,1,12.5",
  "'End Test" }, "\n"))
local o1 = old.phases[1]
tap.ok(o1.name == "512B; 100% Read; 0% random" and o1.iops == 20000 and o1.mib_per_s == 9.765625
  and math.abs(o1.mb_per_s - 10.24) < 1e-9 and o1.lat.p50_ns == 0 and o1.meta.iometer.percentiles == false
  and o1.seconds == 10 and old.iomoon == "IOMeter 2006.07.27", "the 2006 layout: MBps binary, no percentiles")
tap.refuses("no 'Results block", function() iometer.load_results("e.csv", "'Version\n1.1.0\n") end, "a sheet without results")

print("1.." .. tap.n)
