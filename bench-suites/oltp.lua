-- oltp: seed 002's OLTP database mix, two thirds reads and one third writes
-- of 8 KB pages at random, with a transaction-log writer beside it.
--
-- Where the numbers come from: seed 002 ("an OLTP database ... will probably
-- do a mix of both reading and writing, so a benchmark scenario with 66 %
-- reading and 33 % writes") compared DAS, FC and iSCSI targets with it.
-- The 8 KB page and the log writer are the usual shape of such a database:
-- 8 KB is SQL Server's and Oracle's common page size; the log is written
-- sequentially in 64 KB pieces to its own area (the last 10 % of the test
-- area) and makes 10 % of the I/Os. The first phase is the data mix alone,
-- the second the same with the log beside it, so the log's cost shows.
return {
  name = "oltp",
  description = "seed 002's OLTP mix: 8k random, 66 % read, alone and with a sequential log writer",
  source = "seed 002: affordable storage for the SME, IOMeter's 66 % read OLTP test",
  size = "4g",
  name_width = 30,
  defaults = { qd = 16, duration = "60s" },
  phases = function(opts)
    local bytes = opts.area_bytes or require("iomoon").size("4g")
    local log = math.floor(bytes / 10 / 65536) * 65536
    local data = bytes - log
    return {
      { name = "OLTP 8K; 66% Read; 100% random", mix = {
        { bs = "8k", read = 66, random = 100, region = { offset = 0, size = data } } } },
      { name = "OLTP 8K + log 64K sequential", mix = {
        { bs = "8k", read = 66, random = 100, weight = 90, region = { offset = 0, size = data } },
        { bs = "64k", read = 0, random = 0, weight = 10, region = { offset = data, size = log } } } },
    }
  end,
}
