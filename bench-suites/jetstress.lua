-- jetstress: an Exchange mailbox database as Jetstress drives it, in one
-- phase of two streams: the database, 32 KiB pages at random, 60 % read,
-- and its transaction log, 8 KiB sequential writes, each durable
-- (O_DSYNC), at a tenth of the database's I/O rate.
--
-- Where the numbers come from (doc/suites.md, "jetstress", has the links):
-- Jetstress's tuning goals as its author described them (database reads to
-- writes 3:2 to 2:1, database to log transfers 8:1 to 12:1, 6 to 8 KB per
-- log write) and the 32 KB database page of Exchange 2010 and later
-- (8 KB in Exchange 2007: the io-analyzer suite's "Exchange 2007" test).
-- The rate (1000 database IOPS, 100 log IOPS) and O_DSYNC for the log are
-- iomoon's choices.
--
-- One target: the databases are the first 90 % of the test area, the log
-- the last 10 %.
--
-- The verdict is Jetstress's (iomoon.report.verdict, doc/suites.md): PASS
-- when the database's reads average under 20 ms and the log's writes under
-- 10 ms, with no I/O error; else FAIL, and the suite exits 1.
local iomoon = require "iomoon"
local suite = require "iomoon.suite"

return {
  name = "jetstress",
  description = "Exchange mail store: 32k database pages 60 % read, 8k O_DSYNC log at 1/10 the rate",
  source = "Jetstress tuning goals (read:write 3:2-2:1, db:log 8:1-12:1, 6-8 KB log writes), 32 KB ESE pages",
  size = "4g",
  name_width = 30,
  verdict = "jetstress",
  defaults = { duration = "60s" },
  phases = function(opts)
    local bytes = opts.area_bytes or iomoon.size("4g")
    local log = suite.share(bytes, 0.1)
    local db = bytes - log
    return {
      { name = "jetstress", streams = suite.for_engine({
        { name = "database", bs = "32k", read = 60, random = 100, workers = 4, qd = 16,
          region = { offset = 0, size = db }, rate = { iops = 1000, arrival = "poisson" } },
        { name = "log", bs = "8k", read = 0, random = 0, workers = 1, qd = 1, sync = "dsync",
          region = { offset = db, size = log }, rate = { iops = 100, arrival = "poisson" } },
      }, opts.engine) },
    }
  end,
}
