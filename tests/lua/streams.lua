-- Streams measured: what each stream did to its own file, a paced stream's
-- rate beside a closed loop's, the phase as the exact merge of its streams,
-- and per-stream intervals. arg[1]: the tests directory, arg[2]: a
-- directory of this test's own.
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]


local function sum(list, f)
  local n = 0
  for _, x in ipairs(list) do n = n + f(x) end
  return n
end

-- ---- two streams on two files: a reader and a writer ----
do
  os.remove(dir .. "/a.dat"); os.remove(dir .. "/b.dat") -- filled with random data anew
  local a = iomoon.target { path = dir .. "/a.dat", size = "4m" }
  local b = iomoon.target { path = dir .. "/b.dat", size = "4m" }
  local before = { a = a:read(0, 4 << 20), b = b:read(0, 4 << 20) }
  local r = iomoon.run { name = "two files", qd = 4, streams = { -- nothing timed: each ends by its quota
    { name = "reader", target = a, bs = "4k", read = 100, random = 100, ios = 2000 },
    { name = "writer", target = b, bs = "4k", read = 0, random = 100, pattern = "offset", ios = 2000 },
  } }
  local ra, rb = r.streams[1], r.streams[2]
  tap.ok(ra.name == "reader" and rb.name == "writer" and ra.stream == 1 and rb.stream == 2,
    "streams: names and numbers (%s %d, %s %d)", ra.name, ra.stream, rb.name, rb.stream)
  tap.ok(ra.target == a:path() and rb.target == b:path(), "each stream's result names its own target")
  tap.ok(ra.ios > 0 and ra.write.ios == 0 and rb.ios > 0 and rb.read.ios == 0,
    "the reader only read (%d reads, %d writes), the writer only wrote (%d writes, %d reads)",
    ra.read.ios, ra.write.ios, rb.write.ios, rb.read.ios)
  tap.ok(a:read(0, 4 << 20) == before.a, "the reader's file is byte for byte what it was")
  -- the writer's blocks now hold their own offsets (pattern = "offset")
  local after = b:read(0, 4 << 20)
  local changed, stamped = 0, 0
  for off = 0, (4 << 20) - 4096, 4096 do
    local blk = after:sub(off + 1, off + 4096)
    if blk ~= before.b:sub(off + 1, off + 4096) then
      changed = changed + 1
      if string.unpack("<i8", blk) == off and string.unpack("<i8", blk, 4089) == off + 4088 then
        stamped = stamped + 1
      end
    end
  end
  tap.ok(changed > 0 and changed == stamped,
    "the writer's file changed (%d blocks), each changed block written by the writer (%d hold their offsets)",
    changed, stamped)
  tap.ok(r.ios == ra.ios + rb.ios and r.bytes == ra.bytes + rb.bytes and r.read.ios == ra.read.ios
    and r.write.ios == rb.write.ios, "the phase's ios and bytes are the streams' added up (%d = %d + %d)",
    r.ios, ra.ios, rb.ios)
  tap.ok(type(r.target) == "table" and #r.target == 2 and r.workers == 2, "the phase names both targets, 2 workers")
  a:close(); b:close()
end

-- ---- a paced stream beside a closed loop (sim at 1 ms per I/O: a worker
-- waiting for its I/Os sleeps, so a loaded machine starves none of them) ----
do
  local r = iomoon.run { name = "paced", engine = "sim", sim_latency = "1ms", duration = "2s", interval = "0.5s",
    bs = "4k", streams = {
    { name = "paced", qd = 4, rate = 500 },
    { name = "free", qd = 4 },
    { name = "reads", qd = 2, read = 100, bs = "8k", random = 100 },
  } }
  local p, f, rd = r.streams[1], r.streams[2], r.streams[3]
  tap.ok(p.ios <= 500 * p.seconds + 4 + 1, "the paced stream kept under its 500 IOPS (%d I/Os in %.3f s)", p.ios, p.seconds)
  tap.timed_near(p.iops, 500, 10, "the paced stream achieved its 500 IOPS within 2 %%")
  tap.ok(p.rate_asked_iops == 500 and f.rate_asked_iops == nil and r.rate_asked_iops == nil,
    "the rate asked is the paced stream's own (%s), none for the closed loop and the phase",
    tostring(p.rate_asked_iops))
  tap.timed_ok(f.iops > 4 * p.iops, "the closed loop ran free beside it: %.0f IOPS at QD 4 (sim's 1 ms: up to 4000)", f.iops)
  tap.ok(p.svc ~= nil and f.svc == nil, "the paced stream has a service time (svc), the closed loop none")
  tap.ok(r.ios == p.ios + f.ios + rd.ios, "the phase's ios are exactly its streams' (%d = %d + %d + %d)",
    r.ios, p.ios, f.ios, rd.ios)
  for _, s in ipairs(r.streams) do
    local n = sum(s.intervals, function(iv) return iv.ios end)
    tap.ok(#s.intervals >= 4 and n > 0.9 * s.ios, "stream %s: %d intervals of its own", s.name, #s.intervals)
    tap.ok(n == s.ios, "stream %s: its intervals add up to its I/Os (%d of %d)", s.name, n, s.ios)
  end
  local n = sum(r.intervals, function(iv) return iv.ios end)
  tap.ok(n == r.ios, "the phase's intervals add up to its I/Os (%d of %d)", n, r.ios)
  -- the merge is exact: histograms merged, not percentiles averaged
  tap.ok(r.lat.hist:count() == sum(r.streams, function(s) return s.lat.hist:count() end),
    "the phase's latency histogram holds every stream's samples (%d)", r.lat.hist:count())
  local h = iomoon.hist()
  for _, s in ipairs(r.streams) do h:merge(s.lat.hist) end
  tap.ok(h:percentile(99) == r.lat.hist:percentile(99) and h:max() == r.lat.max_ns and h:min() == r.lat.min_ns,
    "the phase's p99, min and max are those of the streams' histograms merged")
  tap.ok(r.read.ios == sum(r.streams, function(s) return s.read.ios end)
    and r.write.ios == sum(r.streams, function(s) return s.write.ios end),
    "the phase's read and write counts are the streams' added up (%d reads, %d writes)", r.read.ios, r.write.ios)
  local rmean = sum(r.streams, function(s) return s.read.lat.mean_ns * s.read.ios end) / r.read.ios
  tap.near(r.read.lat.mean_ns, rmean, 1e-6 * rmean, "the phase's read latency mean is the streams' weighed by their reads")
  tap.ok(r.read.lat.max_ns == math.max(p.read.lat.max_ns, f.read.lat.max_ns, rd.read.lat.max_ns),
    "the phase's read max is the largest of the streams'")
  tap.ok(r.workers == 3 and r.qd == 4 and p.qd == 4 and f.qd == 4 and rd.qd == 2,
    "workers are all of them (%d), qd the largest stream's (%d)", r.workers, r.qd)
  tap.ok(p.seed == 1 and f.seed == 2 and rd.seed == 3, "stream i runs with the phase's seed + i - 1")
  tap.ok(rd.mix[1].read_pct == 100 and rd.mix[1].bs[1] == 8192 and f.mix[1].read_pct == 100
    and f.mix[1].bs[1] == 4096, "a stream's own bs/read/random replace the phase's mix; the others inherit it")
end

-- ---- a stream's meta: its own, in its result ----
do
  local r = iomoon.run { engine = "null", bs = "4k", meta = { spec = "P" }, streams = {
    { ios = 10, meta = { spec = "8k_70%Read_100%Random" } }, { ios = 10 } } }
  local m = r.streams[1].meta
  tap.ok(m and m.spec == "8k_70%Read_100%Random" and r.streams[2].meta == nil,
    "a stream's meta is carried into its result (%s), and a stream without one has none", tostring(m and m.spec))
  tap.ok(r.meta.spec == "P", "the phase's meta is in the phase's result")
end

-- ---- a phase without streams has no result.streams ----
do
  local r = iomoon.run { engine = "null", bs = "4k", ios = 100 }
  tap.ok(r.streams == nil, "a phase without streams: result.streams is nil")
end

print("1.." .. tap.n)
