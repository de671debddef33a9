-- snia-pts-wsat: the SNIA PTS wsat test (doc/suites.md, "SNIA PTS"): the
-- plan is iomoon.pts's; this file names it.
return require("iomoon.pts").suite("wsat")
