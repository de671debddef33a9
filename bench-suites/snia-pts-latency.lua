-- snia-pts-latency: the SNIA PTS latency test (doc/suites.md, "SNIA PTS"): the
-- plan is iomoon.pts's; this file names it.
return require("iomoon.pts").suite("latency")
