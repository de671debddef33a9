-- snia-pts-throughput: the SNIA PTS throughput test (doc/suites.md, "SNIA PTS"): the
-- plan is iomoon.pts's; this file names it.
return require("iomoon.pts").suite("throughput")
