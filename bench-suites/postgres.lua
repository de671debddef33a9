-- postgres: a PostgreSQL OLTP server's I/O in one phase of three streams:
-- backends reading and writing 8 KiB pages of the data files at random,
-- the WAL writer appending 8 KiB WAL pages with an fdatasync after each
-- (a commit waits for it), and the checkpointer, idle, then writing its
-- dirty pages in a burst, nearly in file order, with fsyncs.
--
-- Where the numbers come from (doc/suites.md, "postgres", has the links):
-- the 8 kB page (PostgreSQL docs, "Database Page Layout": every table and
-- index is an array of 8 kB pages), WAL written in 8 kB pages and synced by
-- fdatasync, Linux's default wal_sync_method (pg_test_fsync's output and
-- the wal_sync_method docs), checkpoints that write dirty buffers sorted by
-- file and block and then fsync each file (checkpoint_timeout, default 5 min,
-- and checkpoint_completion_target). The 70/30 read/write mix, the rates
-- and the idle/burst shape of the checkpoint are iomoon's choices.
--
-- One target holds everything: the data files are the first 90 % of the test
-- area, the WAL the last 10 % (as pg_wal on the same volume). The
-- checkpoint's schedule is cut to the phase's time (--time), so a short
-- run still sees two idle/burst cycles.
local iomoon = require "iomoon"
local suite = require "iomoon.suite"

return {
  name = "postgres",
  description = "PostgreSQL OLTP: 8k pages 70/30, WAL with fdatasync per commit, checkpoint bursts",
  source = "PostgreSQL docs: 8 kB pages, WAL fdatasync (Linux default wal_sync_method), checkpoints",
  size = "4g",
  name_width = 30,
  defaults = { duration = "60s" },
  phases = function(opts)
    local bytes = opts.area_bytes or iomoon.size("4g")
    local wal = suite.share(bytes, 0.1)
    local data = bytes - wal
    local secs = iomoon.duration(opts.time or "60s") / 1e9
    -- two checkpoint cycles: idle for 60 % of each, then a burst of writes
    local cycle = secs / 2
    local checkpoint = {}
    for _ = 1, 2 do
      checkpoint[#checkpoint + 1] = { duration = cycle * 0.6, iops = 0 }
      checkpoint[#checkpoint + 1] = { duration = cycle * 0.4, iops = 2000 }
    end
    return {
      { name = "postgres OLTP", streams = suite.for_engine({
        { name = "data", bs = "8k", read = 70, random = 100, workers = 4, qd = 16,
          region = { offset = 0, size = data }, rate = { iops = 2000, arrival = "poisson" } },
        { name = "wal", bs = "8k", read = 0, random = 0, workers = 1, qd = 1, fdatasync = 1,
          region = { offset = data, size = wal } },
        { name = "checkpoint", bs = "8k", read = 0, random = 20, workers = 1, qd = 8, fsync = 64,
          region = { offset = 0, size = data }, schedule = checkpoint },
      }, opts.engine) },
    }
  end,
}
