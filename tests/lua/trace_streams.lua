-- trace_streams.lua - sequential streams that interleave on one device: a
-- PostgreSQL-like capture (tests/trace_gen.py --pg: 500 sequential 8 KiB
-- WAL appends a second, a sync after every second one, between 2000
-- random 8 KiB data I/Os a second, record by record), as fio iolog v3 and
-- as blktrace; its profile checked against the generator's exact figures;
-- to_phase's phase of streams; that phase checked, run on sim and on a
-- file, and its own trace profiled again.
-- Arguments: the tests directory, a private temporary directory.
local T, TMP = ...
package.path = T .. "/?.lua;" .. package.path
local tap = require "tap"
local iomoon = require "iomoon"
local trace = require "iomoon.trace"

-- The capture in format fmt, and the generator's figures (its --summary,
-- a flat JSON object of whole numbers).
local function capture(fmt, extra)
  local out = string.format("%s/pg-%s", TMP, fmt)
  local cmd = string.format("python3 '%s/trace_gen.py' %s '%s' --pg --wal-sync-every 2 --summary '%s.json' %s", T, fmt,
    out, out, extra or "")
  assert(os.execute(cmd), "trace_gen.py --pg failed")
  local fig = {}
  for k, v in assert(io.open(out .. ".json")):read("a"):gmatch('"([%w_]+)": (%d+)') do fig[k] = tonumber(v) end
  return out, fig
end

local path, fig = capture("iolog3")
local t = iomoon.trace.load(path)
local p = trace.profile(t)
local data = fig.reads + fig.writes

-- the profile: the WAL is found between the data I/Os
tap.ok(p.n == fig.records and p.writes == fig.writes and p.syncs == fig.syncs and p.syncs == fig.wal_writes / 2,
  "the capture: %d records, %d writes (%d of the WAL), %d syncs", p.n, p.writes, fig.wal_writes, p.syncs)
local want_seq = 100 * fig.wal_seq / data
tap.near(p.seq_pct, want_seq, 1, "sequential share within a point of the WAL's (%d of %d data I/Os continue it)",
  fig.wal_seq, data)
tap.ok(p.write_seq_pct == 100 * fig.wal_seq / fig.writes and p.read_seq_pct == 0,
  "exactly: writes %.3f %% sequential (the WAL's %d less its first), reads 0 %%", p.write_seq_pct, fig.wal_writes)
tap.ok(p.seq_runs == fig.wal_runs and p.seq_streams == 1 and p.write_seq_streams == 1 and p.read_seq_streams == 0
  and p.devices[1].seq_streams == 1, "one run, one stream at once, of writes (%s, %s)", tostring(p.seq_runs),
  tostring(p.seq_streams))
local wal = type(p.streams) == "table" and p.streams[1] or {}
tap.ok(type(p.streams) == "table" and #p.streams == 1 and wal.op == "write" and #wal.bs == 1 and wal.bs[1].bytes == 8192
  and wal.bs[1].pct == 100, "streams: one, of 8 KiB writes (%s)", type(p.streams) == "table" and #p.streams or "none")
tap.ok(wal.ios == fig.wal_writes and wal.writes == fig.wal_writes and wal.reads == 0 and wal.runs == fig.wal_runs
  and wal.concurrent == 1 and wal.syncs == fig.wal_syncs and wal.writes_per_sync == 2,
  "the WAL: %s writes, %s syncs (one every %s writes), %s run", tostring(wal.ios), tostring(wal.syncs),
  tostring(wal.writes_per_sync), tostring(wal.runs))
tap.ok(wal.offset_min_bytes == fig.wal_offset and wal.offset_end_bytes == fig.wal_end and wal.arrival == "fixed",
  "where it lies: [%s, %s), fixed arrivals", tostring(wal.offset_min_bytes), tostring(wal.offset_end_bytes))
tap.near(wal.iops or 0, fig.wal_writes / p.span_s, 1e-6, "its rate: its writes over the span (500 a second)")
local rest = p.random or {}
tap.ok(rest.reads == fig.data_reads and rest.writes == fig.data_writes and rest.syncs == 0 and rest.seq_pct == 0
  and rest.offset_end_bytes <= fig.wal_offset, "the rest: the %d data reads and %d writes, no sync, nothing sequential",
  fig.data_reads, fig.data_writes)

-- the same capture as blktrace (syncs as flushes): the same answer
local bpath, bfig = capture("blktrace")
local pb = trace.profile(iomoon.trace.load(bpath))
tap.ok(bfig.records == fig.records and pb.n == p.n and pb.seq_pct == p.seq_pct and #pb.streams == 1
  and pb.streams[1].ios == wal.ios and pb.streams[1].syncs == wal.syncs and pb.random.writes == rest.writes,
  "blktrace: the same streams, syncs and rest (%g %%)", pb.seq_pct)

-- print_profile says it
local lines = {}
trace.print_profile(p, function(s) lines[#lines + 1] = s end)
local text = table.concat(lines, "\n")
tap.ok(text:find("in 1 run, 1 stream at most at once", 1, true)
  and text:find("write 8 KiB: [%d.]+ %% of data I/Os %(2000 I/Os%), 500%.0 IOPS %(fixed%), 1 run, 1 stream at once")
  and text:find("a sync every 2.0 writes", 1, true) and text:find("rest: ", 1, true),
  "print_profile: the stream, its rate and its syncs, and the rest")

-- to_phase: a stream for the WAL beside one for the rest
local ph = trace.to_phase(p, { schedule = false })
local w, d = (ph.streams or {})[1] or {}, (ph.streams or {})[2] or {}
local base = p.offset_min_bytes // 4096 * 4096
tap.ok(ph.streams and #ph.streams == 2 and ph.mix == nil and ph.duration == p.span_s,
  "to_phase: a phase of two streams, as long as the capture")
tap.ok(w.mix and #w.mix == 1 and w.mix[1].bs == 8192 and w.mix[1].read == 0 and w.mix[1].random == 0 and w.fsync == 2
  and w.workers == 1 and w.qd == 1, "the WAL: sequential 8 KiB writes, an fsync every 2, one worker, one at a time")
tap.near(w.rate and w.rate.iops or 0, 500, 500 * 0.01, "the WAL's rate: 500 writes a second")
tap.ok(w.rate and w.rate.arrival == "fixed" and w.region.offset == fig.wal_offset - base
  and w.region.size >= fig.wal_end - fig.wal_offset, "the WAL's region: where it lies (from %d, %d bytes)",
  w.region and w.region.offset or -1, w.region and w.region.size or -1)
tap.ok(d.name == "random" and #d.mix == 2 and d.mix[1].read == 100 and d.mix[1].random == 100 and d.mix[2].read == 0
  and d.mix[2].random == 100 and d.fsync == nil and d.mix[1].bs == 8192,
  "the rest: random 8 KiB reads and writes, no fsync")
tap.near(d.mix[1].weight or 0, 100 * fig.data_reads / (fig.data_reads + fig.data_writes), 1e-9,
  "the rest's read share: the data's")
tap.near(d.rate and d.rate.iops or 0, (fig.data_reads + fig.data_writes) / p.span_s, 1e-6,
  "the rest's rate: its I/Os over the span")
local sched = trace.to_phase(p)
tap.ok(#sched.streams[1].schedule == #p.iops_over_time and #sched.streams[2].schedule == #p.iops_over_time
  and sched.streams[1].rate == nil, "with a schedule: each stream follows its own I/Os over time")
local check = require("iomoon.util").copy(sched)
check.engine = "sim"
tap.ok(iomoon.check(check), "iomoon.check accepts the phase")

-- it runs: on sim for a second at the capture's rates
local run = trace.to_phase(p, { schedule = false, duration = "1s" })
run.engine = "sim"
local r = iomoon.run(run)
local rw, rd = r.streams[1], r.streams[2]
tap.near(rw.write.ios, 500, 50, "sim: the WAL writes 500 a second")
tap.ok(rw.read.ios == 0 and math.abs(rw.sync.ios - rw.write.ios / 2) <= 1,
  "sim: one fsync every 2 WAL writes (%d for %d)", rw.sync.ios, rw.write.ios)
tap.near(rd.ios, d.rate.iops, d.rate.iops * 0.1, "sim: the rest at its rate")
tap.near(100 * rd.read.ios / rd.ios, d.mix[1].weight, 4, "sim: the rest's read share")

-- and on a file, the capture's 1 GiB scaled into 64 MiB
local onfile = trace.to_phase(p, { duration = "1s", region = "64m" })
onfile.target = { path = TMP .. "/pg.dat", size = "64m" }
local f = iomoon.run(onfile)
local fw, fd = f.streams[1], f.streams[2]
tap.ok(fw.write.ios > 100 and fw.read.ios == 0 and math.abs(fw.sync.ios - fw.write.ios / 2) <= 1 and fd.ios > 100
  and f.errors == 0, "a file: the WAL writes (%d) and syncs (%d), the rest runs (%d I/Os)", fw.write.ios, fw.sync.ios,
  fd.ios)
local sw, sr = onfile.streams[1].region, onfile.streams[2].region
tap.ok(sw.offset >= 63 * 1048576 and sw.offset + sw.size <= 64 * 1048576 and sr.offset + sr.size <= sw.offset + 4096,
  "a file: the WAL's region scaled to the end of the 64 MiB (from %d, %d bytes), the rest's before it (to %d)",
  sw.offset, sw.size, sr.offset + sr.size)

-- the synthetic phase traced on sim and profiled: a WAL stream again
local rt = trace.to_phase(p, { schedule = false, duration = "1s" })
rt.engine, rt.trace = "sim", 100000
trace.save(iomoon.run(rt), TMP .. "/synthetic.iolog")
local p2 = trace.profile(iomoon.trace.load(TMP .. "/synthetic.iolog"))
tap.ok(#p2.streams == 1 and p2.streams[1].op == "write" and p2.streams[1].bs[1].bytes == 8192
  and math.abs(p2.streams[1].pct - wal.pct) <= 2 and math.abs(p2.seq_pct - p.seq_pct) <= 2,
  "round trip: its own trace has one 8 KiB write stream, %.1f %% of the data I/Os (the capture's: %.1f %%)",
  p2.streams[1] and p2.streams[1].pct or 0, wal.pct)

-- a scan beside the WAL and the data: two streams and the rest
local spath, sfig = capture("iolog3", "--scan-iops 200")
local ps = trace.profile(iomoon.trace.load(spath))
local scan
for _, s in ipairs(ps.streams) do if s.op == "read" then scan = s end end
tap.ok(#ps.streams == 2 and scan and scan.bs[1].bytes == 131072 and scan.ios == sfig.scan_reads and ps.seq_streams == 2
  and ps.read_seq_streams == 1 and ps.read_seq_pct == 100 * sfig.scan_seq / sfig.reads,
  "with a scan: two streams (the WAL, %s scan reads of 128 KiB), 2 at once", scan and scan.ios or "no")
local phs = trace.to_phase(ps)
tap.ok(#phs.streams == 3 and phs.streams[3].name == "random" and phs.streams[2].mix[1].read == 100
  and phs.streams[2].mix[1].bs == 131072 and phs.streams[2].fsync == nil,
  "to_phase: three streams, the scan's sequential 128 KiB reads without fsync")

print("1.." .. tap.n)
