-- tests/lua/knee.lua: the knee of a sweep (iomoon.html.knee, doc/reports.md)
-- on clean and noisy series, exact answers; and the groups the HTML page
-- draws label each point with its load (tests/76-html.t).
package.path = arg[0]:match("^(.*)/") .. "/../?.lua;" .. package.path
local tap = require "tap"
local html = require "iomoon.html"

local QD = { 1, 2, 4, 8, 16, 32, 64, 128 }

-- a device of service time 1 ms that saturates at `cap` IOPS: min(qd / 1 ms, cap)
local function saturating(cap)
  local t = {}
  for i, q in ipairs(QD) do t[i] = math.min(q * 1000, cap) end
  return t
end

local function knee(loads, iops)
  local k, why = html.knee(loads, iops)
  return tostring(k) .. " " .. tostring(why)
end

-- clean series
tap.ok(knee(QD, saturating(16000)) == "5 bend", "saturating at QD 16: the knee is QD 16 (%s)", knee(QD, saturating(16000)))
tap.ok(knee(QD, saturating(4000)) == "3 bend", "saturating at QD 4: the knee is QD 4 (%s)", knee(QD, saturating(4000)))
tap.ok(knee(QD, saturating(1e9)) == "nil nil", "IOPS in proportion to the load: no knee (%s)", knee(QD, saturating(1e9)))
local logish = {}
for i = 1, #QD do logish[i] = 1000 * i end -- IOPS rising by the same step per doubling: a straight line on log load
tap.ok(knee(QD, logish) == "nil nil", "the same gain per doubling: on the line, no knee (%s)", knee(QD, logish))
tap.ok(knee(QD, saturating(1000)) == "1 flat", "saturated from QD 1: the first point is the knee, flat (%s)",
  knee(QD, saturating(1000)))
tap.ok(knee({ 1, 2, 4 }, { 10000, 10900, 10500 }) == "1 flat", "9 %% more at most: flat, QD 1 (%s)",
  knee({ 1, 2, 4 }, { 10000, 10900, 10500 }))
-- a gradual one: 10k 19k 35k 55k 70k 78k 80k 81k IOPS
local gradual = { 10000, 19000, 35000, 55000, 70000, 78000, 80000, 81000 }
tap.ok(knee(QD, gradual) == "5 bend", "a gradual saturation: the knee is QD 16 (%s)", knee(QD, gradual))

-- noisy series: what the running maximum is for
local noisy = { 9000, 7000, 15000, 12000, 30000, 29000, 31000, 30500 }
tap.ok(knee(QD, noisy) == "5 bend", "noisy: the dips at QD 2, 8 and 32 do not move the knee off QD 16 (%s)",
  knee(QD, noisy))
-- (the most IOPS per ms of mean latency, Kleinrock's power, which the page
-- marked before, is QD 1 on this series: lat = qd / IOPS by Little's law)
local vm = { 5200, 4100, 6900, 5600, 11800, 9400, 12100, 11900 } -- a busy VM: QD 1 fast, the rest noisy
tap.ok(knee(QD, vm) == "5 bend", "a VM's noisy sweep: QD 16, not QD 1 (%s)", knee(QD, vm))
local spike = { 20000, 5000, 6000, 7000, 8000, 9000, 10000, 11000 } -- QD 1 the best of all
tap.ok(knee(QD, spike) == "1 flat", "QD 1 the highest of all: it is the knee, flat (%s)", knee(QD, spike))
local late = { 1000, 1100, 1050, 1200, 1150, 1300, 9000, 9100 } -- a jump at QD 64 after a flat start
tap.ok(knee(QD, late) == "7 bend", "a jump at QD 64: the knee is QD 64 (%s)", knee(QD, late))

-- loads that are not powers of two (find_max's probes): rates asked
local rates = { 1000, 2000, 3000, 4000, 5000, 6000 }
local got = { 1000, 2000, 3000, 3950, 4000, 4010 }
tap.ok(knee(rates, got) == "4 bend", "rate probes: the knee is the 4000/s probe (%s)", knee(rates, got))
-- two phases at one load: the one that set the envelope
tap.ok(knee({ 1, 4, 4, 16 }, { 1000, 3000, 4000, 4100 }) == "3 bend", "two phases at QD 4: the knee is the one with more IOPS (%s)",
  knee({ 1, 4, 4, 16 }, { 1000, 3000, 4000, 4100 }))
tap.ok(knee({ 1, 2 }, { 1000, 2000 }) == "nil nil", "two points: no bend between them (%s)", knee({ 1, 2 }, { 1000, 2000 }))

-- the groups: labelled by load, in load order, the knee and its note
local function result(name, qd, workers, iops, rate)
  return { name = name, qd = qd, workers = workers, iops = iops, engine = "sim", bs = 4096, rate_asked_iops = rate,
    lat = { mean_ns = qd * workers * 1e9 / iops } }
end
local rs = {}
for i, q in ipairs(QD) do rs[#rs + 1] = result("sweep QD " .. q, q, 1, noisy[i]) end
table.insert(rs, 1, table.remove(rs, 5)) -- out of order: QD 16 first
local g = html.groups(rs)
tap.ok(#g == 1 and table.concat(g[1].labels, ",") == "QD 1,QD 2,QD 4,QD 8,QD 16,QD 32,QD 64,QD 128",
  "the sweep's points in QD order, each labelled with its QD (%s)", g[1] and table.concat(g[1].labels, ",") or "none")
tap.ok(g[1].knee == 0, "the knee is QD 16 (phase index 0, listed first)")
tap.ok(g[1].note == "knee: sweep QD 16 (QD 16), 30000 IOPS: where the most IOPS reached so far bends away from "
  .. "rising with the load", "its note: %s", g[1].note)
local ws = { result("w1", 4, 1, 4000), result("w2", 4, 2, 8000), result("w4", 4, 4, 8100) }
g = html.groups(ws)
tap.ok(table.concat(g[1].labels, ",") == "QD 4,QD 4x2,QD 4x4" and g[1].knee == 1,
  "a worker sweep: labelled QD qxw, knee at 2 workers (%s, knee %s)", table.concat(g[1].labels, ","), g[1].knee)
local ps = { result("r1", 1, 1, 1000, 1000), result("r2", 1, 1, 2000, 2000), result("r3", 1, 1, 4000, 4000) }
g = html.groups(ps)
tap.ok(table.concat(g[1].labels, ",") == "1000/s,2000/s,4000/s" and g[1].knee == nil
  and g[1].note == "no knee: the IOPS still rise with the load at 4000/s, the largest here (try higher loads)",
  "rate probes: labelled by the rate asked; no knee while IOPS keep up (%s)", g[1].note)
ps = { result("f1", 1, 1, 5000), result("f2", 2, 1, 5100) }
g = html.groups(ps)
tap.ok(g[1].knee == 0 and g[1].note == "knee: f1 (QD 1): no higher load gave 10 % more IOPS than it (5000 IOPS)",
  "flat: the first point, and the note says why (%s)", g[1].note)
print("1.." .. tap.n)
