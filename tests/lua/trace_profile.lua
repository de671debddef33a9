-- trace_profile.lua - iomoon.trace.profile on traces this script writes
-- (fio iolog v3), whose answers are known exactly; to_phase's phase and
-- its options; print_profile; and the synthetic phase run on the sim
-- engine and on a file against the trace's own read share and IOPS.
-- Arguments: the tests directory, a private temporary directory.
local T, TMP = ...
package.path = T .. "/?.lua;" .. package.path
local tap = require "tap"
local iomoon = require "iomoon"
local trace = require "iomoon.trace"

local MIB = 1048576
local EXTENT = 40 * MIB

-- n records GAP_US apart on one device: 70 % reads (k % 10 < 7), sizes
-- 4k/8k/64k at 50/30/20 % ((k // 10) % 10), every odd record sequential,
-- 80 % of the even (random) ones in the first 10 % of [0, EXTENT), the
-- first at 0 and the last two ending at EXTENT.
local function write_known(path, n, gap_us, opts)
  opts = opts or {}
  local f = assert(io.open(path, "w"))
  local seed, lens, done, ends, last = 12345, {}, 0, {}, {}
  local function below(m) seed = (seed * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff; return (seed >> 20) % m end
  for k = 0, n - 1 do
    local s = (k // 10) % 10
    lens[k] = s < 5 and 4096 or s < 8 and 8192 or 65536
  end
  f:write("fio version 3 iolog\n")
  for _, d in ipairs(opts.devs or { "/dev/x" }) do f:write(string.format("0 %s add\n0 %s open\n", d, d)) end
  for k = 0, n - 1 do
    local off
    if k % 2 == 1 then off = done
    elseif k == 0 then off = 0
    elseif k == n - 2 then off = EXTENT - lens[k] - lens[k + 1]
    else
      repeat -- random: never where one of the last 64 ended (a stream's head)
        if (k // 2) % 5 ~= 4 then off = below((EXTENT // 10 - 65536) // 4096) * 4096
        else off = EXTENT // 10 + below((EXTENT * 8 // 10) // 4096) * 4096 end
      until not ends[off]
    end
    done = off + lens[k]
    last[k], ends[done] = done, (ends[done] or 0) + 1
    if k >= 64 then -- only the last 64 count
      local gone = last[k - 64]
      ends[gone] = ends[gone] > 1 and ends[gone] - 1 or nil
    end
    local op = k % 10 < 7 and "read" or "write"
    f:write(string.format("%d %s %s %d %d\n", k * gap_us, (opts.devs or { "/dev/x" })[1], op, off, lens[k]))
    if opts.sync_every and op == "write" and k % opts.sync_every == 9 then
      f:write(string.format("%d %s sync 0 0\n", k * gap_us, (opts.devs or { "/dev/x" })[1]))
    end
  end
  f:close()
end

local path = TMP .. "/known.iolog"
write_known(path, 10000, 200)
local t = iomoon.trace.load(path)
local p = iomoon.trace.profile(t)

-- what the profile must say
tap.ok(p.n == 10000 and p.reads == 7000 and p.writes == 3000 and p.trims == 0 and p.syncs == 0,
  "10000 I/Os: 7000 reads, 3000 writes (%d, %d, %d)", p.n, p.reads, p.writes)
tap.ok(p.read_pct == 70 and p.write_pct == 30 and p.trim_pct == 0 and p.sync_pct == 0,
  "read_pct 70, write_pct 30 (%g, %g)", p.read_pct, p.write_pct)
tap.ok(#p.bs == 3 and p.bs[1].bytes == 4096 and p.bs[1].pct == 50 and p.bs[2].bytes == 8192 and p.bs[2].pct == 30
  and p.bs[3].bytes == 65536 and p.bs[3].pct == 20 and p.bs_other_pct == 0, "bs: 4 KiB 50 %%, 8 KiB 30 %%, 64 KiB 20 %%")
tap.ok(p.seq_pct == 50 and math.abs(p.read_seq_pct - 300 / 7) < 1e-9 and math.abs(p.write_seq_pct - 200 / 3) < 1e-9,
  "sequential 50 %% (reads 3 of 7, writes 2 of 3): %g, %g, %g", p.seq_pct, p.read_seq_pct, p.write_seq_pct)
tap.ok(p.bytes_read == 700 * (5 * 4096 + 3 * 8192 + 2 * 65536) and p.bytes_written == 300 * (5 * 4096 + 3 * 8192 + 2 * 65536),
  "bytes read and written (%d, %d)", p.bytes_read, p.bytes_written)
tap.ok(p.offset_min_bytes == 0 and p.offset_end_bytes == EXTENT and p.extent_bytes == EXTENT,
  "touched extent [0, 40 MiB) (%d, %d)", p.offset_min_bytes, p.offset_end_bytes)
tap.ok(p.dist == "zoned:80.000/10.000:20.000/90.000" and p.hot.dist == p.dist and #p.hot.zones == 2
  and p.hot.random_only and p.hot.ios == 5000 and #p.hot.cells_pct == 50,
  "hot spots: 80 %% of the random I/Os in 10 %% of the extent: %s (misplaced %.2f %%)", p.dist, p.hot.misplaced_pct)
tap.near(p.iops, 5000, 1e-6, "iops: one I/O every 200 us")
tap.near(p.span_s, 1.9998, 1e-9, "span_s: the last record's time")
tap.ok(p.arrival == "fixed" and p.gap.n == 9999 and p.gap.mean_ns == 200000 and p.gap.cv < 1e-9
  and math.abs(p.gap.p50_ns - 200000) <= 800 and math.abs(p.gap.p99_ns - 200000) <= 800 and p.gap.max_ns == 200000,
  "gaps: fixed, 200 us (mean %g, p50 %d, p99 %d)", p.gap.mean_ns, p.gap.p50_ns, p.gap.p99_ns)
local sum = 0
for _, v in ipairs(p.iops_over_time) do sum = sum + v * p.interval_s end
tap.ok(#p.iops_over_time == 60 and math.abs(sum - 10000) < 1e-6, "iops_over_time: 60 intervals holding the 10000 I/Os (%g)", sum)
tap.ok(#p.devices == 1 and p.devices[1].name == "/dev/x" and p.devices[1].n == 10000 and p.format == "iolog3",
  "one device, /dev/x; format %s", p.format)

-- options of profile
local p2 = iomoon.trace.profile(t, { cells = 20, zones = 2, buckets = 10 })
tap.ok(#p2.hot.cells_pct == 20 and p2.dist == "zoned:80.000/10.000:20.000/90.000" and #p2.iops_over_time == 10,
  "cells = 20, buckets = 10: the same fit (%s), 10 intervals", p2.dist)
tap.refuses("profile: unknown field 'cell' %(did you mean 'cells'%?%)$", function() iomoon.trace.profile(t, { cell = 5 }) end,
  "a misspelt option, naming the nearest")
tap.refuses("profile.device: 'nope' is not a device of the trace", function() iomoon.trace.profile(t, { device = "nope" }) end,
  "an unknown device")
tap.refuses("profile.cells: ", function() iomoon.trace.profile(t, { cells = 0 }) end, "cells = 0")
tap.refuses("profile: a string is not a trace", function() iomoon.trace.profile("known.iolog") end, "a path for a trace")

-- to_phase
tap.ok(iomoon.trace.to_phase == trace.to_phase and iomoon.trace.print_profile == trace.print_profile
  and trace.load == iomoon.trace.load and trace.profile == iomoon.trace.profile,
  "iomoon.trace.to_phase is require('iomoon.trace').to_phase, which has load and profile too")
local ph = trace.to_phase(p)
tap.ok(#ph.mix == 2 and ph.mix[1].read == 100 and ph.mix[1].weight == 70 and ph.mix[2].read == 0
  and math.abs(ph.mix[2].weight - 30) < 1e-9, "mix: a read spec weighing 70, a write spec 30")
tap.ok(math.abs(ph.mix[1].random - (100 - 300 / 7)) < 1e-9 and math.abs(ph.mix[2].random - 100 / 3) < 1e-9,
  "random = 100 - each op's sequential share (%g, %g)", ph.mix[1].random, ph.mix[2].random)
tap.ok(ph.mix[1].bs[1][1] == 4096 and ph.mix[1].bs[1][2] == 50 and ph.mix[1].bs[3][1] == 65536
  and math.abs(ph.mix[1].bs[3][2] - 20) < 1e-9, "bs: the sizes with their weights")
tap.ok(ph.qd == math.ceil(math.max(table.unpack(p.iops_over_time)) * 0.05) and ph.qd > 250,
  "qd: slots for 50 ms at the peak rate (%d)", ph.qd)
tap.ok(ph.dist == p.dist and ph.region == EXTENT and ph.duration == p.span_s and #ph.schedule == 60
  and ph.schedule[1].arrival == "fixed" and ph.rate == nil, "dist, region, duration, a schedule of 60 segments")
local flat = trace.to_phase(p, { schedule = false, scale = 2, duration = "1s", region = "64m", qd = 8, name = "x2" })
tap.ok(flat.rate.iops == 2 * p.iops and flat.rate.arrival == "fixed" and flat.schedule == nil and flat.duration == 1
  and flat.region == "64m" and flat.qd == 8 and flat.name == "x2", "schedule = false, scale = 2, duration, region, qd, name")
tap.ok(trace.to_phase(p, { region = "1m" }).dist == nil and trace.to_phase(p, { region = { size = "8m" } }).dist == p.dist,
  "a region whose 10 %% zone cannot hold two 64 KiB blocks drops the dist (1 MiB), a larger one keeps it")
local stretched = trace.to_phase(p, { duration = 4, scale = 0.5 })
tap.ok(math.abs(stretched.schedule[1].duration - 4 / p.span_s * p.interval_s) < 1e-12
  and math.abs(stretched.schedule[1].iops - p.iops_over_time[1] / 2) < 1e-9 and stretched.duration == 4,
  "a duration stretches the schedule's segments; scale halves their IOPS")
tap.refuses("^to_phase: unknown field 'scal' %(did you mean 'scale'%?%)$", function() trace.to_phase(p, { scal = 2 }) end,
  "a misspelt option, naming the nearest")
tap.refuses("^to_phase.scale: ", function() trace.to_phase(p, { scale = 0 }) end, "scale = 0")
tap.refuses("^to_phase.schedule: a string", function() trace.to_phase(p, { schedule = "no" }) end, "schedule = 'no'")
tap.refuses("^to_phase: a nil is not a profile", function() trace.to_phase(nil) end, "no profile")
do
  local c = require("iomoon.util").copy(ph)
  c.engine = "sim"
  tap.ok(iomoon.check(c), "iomoon.check accepts the phase on the sim engine")
end

-- print_profile
local lines = {}
trace.print_profile(p, function(s) lines[#lines + 1] = s end)
local text = table.concat(lines, "\n")
tap.ok(text:find("ops: read 70.0 %, write 30.0 %", 1, true) and text:find("block sizes: 4 KiB 50.0 %, 8 KiB 30.0 %, 64 KiB 20.0 %", 1, true)
  and text:find("5000.0 IOPS (mean)", 1, true) and text:find("hot spots: zoned:80.000/10.000:20.000/90.000", 1, true)
  and text:find("gaps: mean 200.0 us", 1, true) and text:find("region: offsets 0 B to 40 MiB", 1, true),
  "print_profile: shares, sizes, IOPS, hot spots, gaps, region with units")
local bare = 0
for _, l in ipairs(lines) do
  -- every number is followed by a unit (or is a cv, a count of I/Os, intervals, runs, streams or
  -- writes, or in a zoned string)
  if l:match("^%s+[%d.]+ s: [%d ]+ IOPS$") then l = "" end -- a row of IOPS over time: the unit ends it
  for num, unit in l:gsub("zoned:[%d.:/]+", ""):gsub("cv [%d.]+", ""):gmatch("%f[%w](%d[%d.]*)(%s*%S*)") do
    if not unit:match("^%s*[%%BKMGTsumnI]") and not unit:match("^%s*interval") and not unit:match("^%s*of")
      and not unit:match("^%s*run") and not unit:match("^%s*stream") and not unit:match("^%s*write") then
      bare = bare + 1
      print("# no unit: " .. num .. unit .. " in: " .. l)
    end
  end
end
tap.ok(bare == 0, "print_profile: a unit after every number (%d without)", bare)

-- the phase runs: on sim, then on a file; read share within 2 points,
-- IOPS within 10 % of the trace's
local function run_on(target, engine)
  local q = trace.to_phase(p)
  q.target, q.engine = target, engine
  local r = iomoon.run(q)
  local share = 100 * r.read.ios / r.ios
  tap.near(share, p.read_pct, 2, "%s: read share within 2 points of the trace's", engine)
  tap.near(r.iops, p.iops, p.iops * 0.1, "%s: IOPS within 10 %% of the trace's", engine)
  print(string.format("# %s: %.0f IOPS, %.2f %% reads, p50 %.1f us, p99 %.1f us", engine, r.iops, share,
    r.lat.p50_ns / 1e3, r.lat.p99_ns / 1e3))
  return r
end
run_on(nil, "sim")
local file = { path = TMP .. "/profile.dat", size = EXTENT }
local synth = run_on(file, "auto")

-- replaying the trace and running its synthetic phase on the same file:
-- IOPS within 10 %, read share within 2 points; latency percentiles shown
local function lat_line(r)
  return string.format("p50 %.1f us, p90 %.1f us, p99 %.1f us, p99.9 %.1f us", r.lat.p50_ns / 1e3, r.lat.p90_ns / 1e3,
    r.lat.p99_ns / 1e3, r.lat.p999_ns / 1e3)
end
local can_replay = pcall(iomoon.check, { engine = "sim", replay = t, qd = 32 })
if not can_replay then
  tap.skip("replay = trace is not a phase field of this build")
  tap.skip("replay = trace is not a phase field of this build")
else
  local rr = iomoon.run { name = "replay", target = TMP .. "/profile.dat", replay = t }
  local rshare, sshare = 100 * rr.read.ios / rr.ios, 100 * synth.read.ios / synth.ios
  tap.near(synth.iops, rr.iops, rr.iops * 0.1, "synthetic IOPS within 10 %% of the replay's")
  tap.near(sshare, rshare, 2, "synthetic read share within 2 points of the replay's")
  print(string.format("# replay:    %.0f IOPS, %.2f %% reads, %s", rr.iops, rshare, lat_line(rr)))
  print(string.format("# synthetic: %.0f IOPS, %.2f %% reads, %s", synth.iops, sshare, lat_line(synth)))
end

-- a round trip: a zipf workload run with trace = N on sim, saved, loaded
-- and profiled; its synthetic phase run the same way profiles the same
local function top_cells(prof, k)
  local c = {}
  for i, v in ipairs(prof.hot.cells_pct) do c[i] = v end
  table.sort(c, function(a, b) return a > b end)
  local sum = 0
  for i = 1, k do sum = sum + c[i] end
  return sum
end
local function traced_profile(phase, name)
  phase.engine, phase.trace = "sim", 100000
  local r = iomoon.run(phase)
  trace.save(r, TMP .. "/" .. name, "iolog")
  return iomoon.trace.profile(iomoon.trace.load(TMP .. "/" .. name))
end
local pz = traced_profile({ region = "64m", mix = { { bs = { { "4k", 60 }, { "16k", 40 } }, read = 60, random = 80 } },
  dist = "zipf:1.2", rate = { iops = 5000, arrival = "poisson" }, qd = 16, duration = "1s" }, "zipf.iolog")
local pz2 = traced_profile(trace.to_phase(pz), "zipf2.iolog")
tap.ok(math.abs(pz2.read_pct - pz.read_pct) <= 2 and math.abs(pz2.seq_pct - pz.seq_pct) <= 2
  and math.abs(pz2.bs[1].pct - pz.bs[1].pct) <= 2 and pz2.bs[1].bytes == pz.bs[1].bytes and pz2.arrival == pz.arrival
  and math.abs(pz2.iops - pz.iops) <= pz.iops * 0.1,
  "round trip: read %.1f/%.1f %%, sequential %.1f/%.1f %%, 4k %.1f/%.1f %%, %.0f/%.0f IOPS, %s/%s", pz.read_pct,
  pz2.read_pct, pz.seq_pct, pz2.seq_pct, pz.bs[1].pct, pz2.bs[1].pct, pz.iops, pz2.iops, pz.arrival, pz2.arrival)
tap.ok(top_cells(pz, 5) > 30 and math.abs(top_cells(pz2, 5) - top_cells(pz, 5)) <= 5,
  "round trip: the hottest 10 %% of the cells hold %.1f %% and %.1f %% of the random I/Os (%s)", top_cells(pz, 5),
  top_cells(pz2, 5), pz.dist)

-- syncs become fsync = N; several devices are listed, and one profiled alone
local sp = TMP .. "/sync.iolog"
write_known(sp, 1000, 1000, { sync_every = 10, devs = { "/dev/x", "/dev/y" } })
local ps = iomoon.trace.profile(iomoon.trace.load(sp))
local phs = trace.to_phase(ps)
tap.ok(ps.syncs == 100 and ps.writes == 300 and phs.fsync == 3, "100 syncs for 300 writes: fsync = 3 (%d, %s)", ps.syncs,
  tostring(phs.fsync))
local multi = TMP .. "/multi.iolog"
do
  local f = assert(io.open(multi, "w"))
  f:write("fio version 3 iolog\n0 /dev/a add\n0 /dev/b add\n0 /dev/a open\n0 /dev/b open\n")
  for k = 0, 999 do
    f:write(string.format("%d /dev/a read %d 4096\n", k * 1000, k * 4096))
    if k % 4 == 0 then f:write(string.format("%d /dev/b write %d 8192\n", k * 1000 + 500, (999 - k) * 8192)) end
  end
  f:close()
end
local mt = iomoon.trace.load(multi)
local pm = iomoon.trace.profile(mt)
tap.ok(#pm.devices == 2 and pm.devices[1].name == "/dev/a" and pm.devices[1].n == 1000 and pm.devices[1].read_pct == 100
  and pm.devices[2].n == 250 and pm.devices[2].write_pct == 100 and pm.devices[1].seq_pct > 99.8 and pm.devices[2].seq_pct == 0,
  "two devices: each with its own counts and sequential share (%g, %g)", pm.devices[1].seq_pct, pm.devices[2].seq_pct)
local pb = iomoon.trace.profile(mt, { device = "/dev/b" })
local pb2 = iomoon.trace.profile(mt, { device = 2 })
tap.ok(pb.device == "/dev/b" and pb.n == 250 and pb.writes == 250 and pb2.n == 250 and #pb.devices == 1
  and pb.bs[1].bytes == 8192, "device = '/dev/b' (or 2): that device alone")

-- trims: a spec of their own that runs on a file; a trace of syncs alone
-- has nothing to build a phase of
local tp = TMP .. "/trim.iolog"
do
  local f = assert(io.open(tp, "w"))
  f:write("fio version 3 iolog\n0 /dev/t add\n0 /dev/t open\n")
  for k = 0, 3999 do
    local op = k % 4 == 0 and "trim" or "write"
    f:write(string.format("%d /dev/t %s %d %d\n", k * 500, op, (k * 7919 % 2048) * 65536, op == "trim" and 65536 or 4096))
    if k % 40 == 39 then f:write(string.format("%d /dev/t sync 0 0\n", k * 500)) end
  end
  f:close()
end
local pt = iomoon.trace.profile(iomoon.trace.load(tp))
-- qd 8: fsync counts writes per slot, so the first qd x N writes sync less
local pht = trace.to_phase(pt, { duration = "1s", qd = 8 })
tap.ok(pt.trims == 1000 and pt.syncs == 100 and #pht.mix == 2 and pht.mix[1].read == 0 and pht.mix[2].trim == 100
  and pht.mix[2].bs == 65536 and pht.fsync == 30, "trims: a spec with trim = 100 and their size; fsync = 30")
pht.target = { path = TMP .. "/trim.dat", size = pt.extent_bytes }
local rt = iomoon.run(pht)
tap.near(100 * rt.trim.ios / rt.ios, 25, 3, "the phase trims a file: trim share of its I/Os")
local data_iops = pt.iops * (pt.n - pt.syncs) / pt.n
tap.ok(math.abs(pht.schedule[1].iops - pt.iops_over_time[1] * 4000 / 4100) < 1e-9,
  "the schedule paces the data I/Os alone (syncs come on top, by fsync)")
-- the rate asked is the trace's exactly; what was achieved is within 10 %
-- of it, unless the disk held every slot (bottleneck "device": a stall of
-- this VM's disk under trims and fsyncs once gave 1331 of 2000) or the
-- host's CPU did ("tool", or "host": a loaded machine), never short with slots idle
-- and the host free (pacing too slow) nor over (pacing too fast)
tap.near(rt.rate_asked_iops, data_iops, data_iops * 0.001, "the phase asks the trace's IOPS of reads, writes and trims")
tap.ok(rt.iops <= data_iops * 1.1, "the phase never goes over the trace's IOPS (got %.0f, want at most %.0f + 10 %%)",
  rt.iops, data_iops)
tap.timed_ok(math.abs(rt.iops - data_iops) <= data_iops * 0.1
  or (rt.iops < data_iops and rt.bottleneck ~= nil and rt.bottleneck ~= "rate"),
  "the phase keeps the trace's IOPS of reads, writes and trims (got %.0f, want %.0f +- 10 %%, or less with the device "
  .. "or the host the bottleneck; bottleneck %s)", rt.iops, data_iops, tostring(rt.bottleneck))
-- every slot syncs after each 30 of its writes: between W / 30 less what
-- each of the 8 slots has not yet synced (at most 29 writes) and W / 30
local W = rt.write.ios
tap.ok(rt.sync.ios <= W / 30 + 8 and rt.sync.ios >= (W - 8 * 29) / 30 - 8,
  "one sync per 30 writes of a slot: %d syncs for %d writes (%.1f/s; the trace: %.1f/s)", rt.sync.ios, W,
  rt.sync.ios / rt.seconds, pt.syncs / pt.span_s)
local sy = TMP .. "/sync-only.iolog"
do
  local f = assert(io.open(sy, "w"))
  f:write("fio version 3 iolog\n0 /dev/s add\n0 /dev/s open\n10 /dev/s sync 0 0\n20 /dev/s sync 0 0\n")
  f:close()
end
local psy = iomoon.trace.profile(iomoon.trace.load(sy))
tap.ok(psy.n == 2 and psy.syncs == 2 and #psy.bs == 0 and psy.dist == "uniform", "a trace of syncs alone is profiled")
tap.refuses("to_phase: the profile has no reads, writes or trims", function() trace.to_phase(psy) end,
  "a phase of syncs alone")

print("1.." .. tap.n)
