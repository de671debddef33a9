-- Reproducing an application: a PostgreSQL server's I/O as one phase of
-- three streams, measured over the same window.
--   data: the backends' 8 KiB page reads and writes (70/30) at random in the
--         data files, open loop, following a day's load curve (compressed
--         into the run's time) made with iomoon.think
--   wal:  the WAL writer, 8 KiB sequential writes to its own file, closed
--         loop, an fdatasync after every write (a commit waits for both)
--   checkpoint: bursts of 8 KiB page writes to the data files, nearly in
--         file order, twice a day, with an fsync every 64 writes
-- It prints the data stream's p99, the WAL writes' p99 and the fdatasync
-- p99 side by side.
--
--   iomoon run examples/postgres.lua [DATA [TIME [WAL]]]
-- DATA: a file or device (a new file is made at 256 MiB); TIME: the whole
-- day (default 6s); WAL: the WAL's file or device (default DATA.wal, a
-- new file of 64 MiB; give it when DATA is a device, and allow writes to
-- devices with allow_write = true below).
local iomoon = require "iomoon"
local think = require "iomoon.think"

local path, time = arg[1] or "iomoon-pg.dat", arg[2] or "6s"
local st = iomoon.stat(path)
if not arg[3] and st and st.kind == "block" then
  io.stderr:write("examples/postgres.lua: ", path, " is a device: give the WAL's file or device too ",
    "(DATA TIME WAL), and add allow_write = true to the iomoon.target calls below: it writes\n")
  os.exit(2)
end
local wal_path = arg[3] or path .. ".wal"
local function exists(p) local f = io.open(p) if f then f:close() end return f ~= nil end
-- an existing file or device is used at its own size
local data = iomoon.target { path = path, size = not exists(path) and "256m" or nil }
local wal = iomoon.target { path = wal_path, size = not exists(wal_path) and "64m" or nil }

local steps, secs = 8, iomoon.duration(time) / 1e9
-- night 200 IOPS, midday 2000, night again; poisson arrivals in every segment
local day = think.diurnal { trough = 200, peak = 2000, period = time, steps = steps, arrival = "poisson" }

local r = iomoon.run {
  name = "postgres", interval = secs / steps,
  streams = {
    think.apply({ name = "data", target = data, bs = "8k", read = 70, random = 100, workers = 2, qd = 16 }, day),
    { name = "wal", target = wal, bs = "8k", read = 0, random = 0, workers = 1, qd = 1, fdatasync = 1 },
    -- the checkpointer: bursts of page writes in file order, an fsync now and then
    think.apply({ name = "checkpoint", target = data, bs = "8k", read = 0, random = 20, workers = 1, qd = 8,
      fsync = 64 }, think.on_off { on = secs / 8, off = secs * 3 / 8, duration = secs, iops = 1000 }),
  },
}

local d, w = r.streams[1], r.streams[2]
local function ms(ns) return string.format("%.3f ms", ns / 1e6) end
print(string.format("%-8s %14s %14s %14s", "", "data 8k r/w", "WAL write", "fdatasync"))
print(string.format("%-8s %14s %14s %14s", "p99", ms(d.lat.p99_ns), ms(w.lat.p99_ns), ms(w.sync.lat.p99_ns)))
print(string.format("%-8s %14s %14s %14s", "p50", ms(d.lat.p50_ns), ms(w.lat.p50_ns), ms(w.sync.lat.p50_ns)))
print(string.format("%-8s %14.0f %14.0f %14.0f", "IOPS", d.iops, w.iops, w.sync.iops))
print(string.format("%-8s %14d %14d %14d", "count", d.ios, w.ios, w.sync.ios))
local c = r.streams[3]
print(string.format("\ncheckpoint: %d page writes in bursts (p99 %s), %d fsyncs (p99 %s)", c.write.ios,
  ms(c.lat.p99_ns), c.sync and c.sync.ios or 0, c.sync and c.sync.ios > 0 and ms(c.sync.lat.p99_ns) or "-"))
-- the day, segment by segment: what the data stream was asked and did
print("\nsegment  data IOPS asked  done   p99")
-- (an interval per segment; a loaded machine can end the phase a moment
-- late, and the interval after the day's last segment is not shown)
for i, seg in ipairs(day.schedule) do
  local iv = d.intervals[i]
  print(string.format("%7d  %15.0f  %5s  %s", i, seg.iops, iv and string.format("%.0f", iv.iops) or "-",
    iv and iv.ios > 0 and ms(iv.p99_ns) or "-"))
end
