-- boot-storm: virtual desktops booting together (a VDI boot storm) beside
-- desktops already running, in one phase of two streams. "booting": 32
-- workers (each a desktop booting, one I/O at a time), mostly reads, mostly
-- small, at random, from the shared golden image, and a few 4 KiB writes to
-- their own delta disks. "running": desktops in steady state, paced at 400
-- IOPS of 4 KiB, write-heavy, on the delta disks: their latency is what
-- users notice while the storm lasts.
--
-- Where the numbers come from (doc/suites.md, "boot-storm", has the links):
-- a Windows 7 boot traced by ThinScale reads 500 to 600 MB and writes 20 to
-- 30 MB in about 70,000 I/Os, most of them small; Helge Klein's trace of a
-- Windows 7 boot counts 16 % writes; VDI sizing articles describe boots as
-- read storms and steady state as write-heavy. The split 70 % 4 KiB reads,
-- 14 % 32 KiB reads, 16 % 4 KiB writes, the 30 % reads of the running
-- desktops, the worker counts and the rate are iomoon's choices.
--
-- One target: the golden image is the first half of the test area, the
-- delta disks the second.
local iomoon = require "iomoon"
local suite = require "iomoon.suite"

return {
  name = "boot-storm",
  description = "VDI boot storm: 32 desktops booting (mostly 4k random reads) beside running ones",
  source = "Windows 7 boot traces (ThinScale: ~70,000 I/Os, 95 % of bytes read; Helge Klein: 16 % writes)",
  size = "4g",
  name_width = 30,
  defaults = { duration = "60s" },
  phases = function(opts)
    local bytes = opts.area_bytes or iomoon.size("4g")
    local half = suite.share(bytes, 0.5)
    local image = { offset = 0, size = half }
    local deltas = { offset = half, size = bytes - half }
    return {
      { name = "boot storm", streams = suite.for_engine({
        { name = "booting", workers = 32, qd = 1, mix = {
          { name = "image 4k read", bs = "4k", read = 100, random = 100, weight = 70, region = image },
          { name = "image 32k read", bs = "32k", read = 100, random = 100, weight = 14, region = image },
          { name = "delta 4k write", bs = "4k", read = 0, random = 100, weight = 16, region = deltas } } },
        { name = "running", bs = "4k", read = 30, random = 100, workers = 4, qd = 4, region = deltas,
          rate = { iops = 400, arrival = "poisson" } },
      }, opts.engine) },
    }
  end,
}
