-- lsm-store: a log-structured key-value store (LevelDB, RocksDB) in one
-- phase of four streams: the write-ahead log appended sequentially with an
-- fsync every 4 appends, a reader tailing the log (as replication reads
-- the WAL), point lookups reading 4 KiB table blocks at random, and
-- compaction reading and writing table files sequentially in 1 MiB pieces.
--
-- Where the numbers come from (doc/suites.md, "lsm-store", has the links):
-- LevelDB's impl.md (every update appended to the log; a full log becomes a
-- sorted table; compactions merge tables into new 2 MB files), RocksDB's
-- WAL wiki (writes grouped into one log write and one sync, up to 1 MB) and
-- table options (4 KiB data blocks by default). The append size (16 KiB: a
-- group of small records), the sync every 4 appends, the rates and the
-- compaction's 1 MiB pieces are iomoon's choices.
--
-- One target: the log is the first 10 % of the test area, the tables the rest.
local iomoon = require "iomoon"
local suite = require "iomoon.suite"

return {
  name = "lsm-store",
  description = "log-structured store: WAL appends, fsync every 4, tail reader, 4k reads, compaction",
  source = "LevelDB impl.md (log, sorted tables, compaction), RocksDB wiki (WAL group commit, 4 KiB blocks)",
  size = "4g",
  name_width = 30,
  defaults = { duration = "60s" },
  phases = function(opts)
    local bytes = opts.area_bytes or iomoon.size("4g")
    local log = suite.share(bytes, 0.1)
    local log_region = { offset = 0, size = log }
    local tables = { offset = log, size = bytes - log }
    return {
      { name = "lsm store", streams = suite.for_engine({
        { name = "wal append", bs = "16k", read = 0, random = 0, workers = 1, qd = 1, fsync = 4, region = log_region },
        { name = "tail", bs = "64k", read = 100, random = 0, workers = 1, qd = 1, region = log_region,
          rate = { iops = 200 } },
        { name = "point reads", bs = "4k", read = 100, random = 100, workers = 2, qd = 8, region = tables },
        { name = "compaction", bs = "1m", read = 50, random = 0, workers = 1, qd = 2, region = tables,
          rate = { iops = 20 } },
      }, opts.engine) },
    }
  end,
}
