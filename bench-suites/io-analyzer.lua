-- io-analyzer: the four VMware I/O Analyzer presets seed 004 ran against a
-- Synology NAS: Max Read IOPS, Max Write IOPS, Exchange 2007 and SQL 64k.
-- Each phase carries its access spec (meta.spec), so `--format analyzer`
-- prints the Analyzer's own raw block (AccessSpec=... IOps=... ReadIOps=...).
--
-- Where the numbers come from: the access specs are the Analyzer's
-- (0.5k_100%Read_0%Random, 0.5k_0%Read_0%Random, 8k_55%Read_80%Random,
-- 64k_66%Read_100%Random); the seed ran each for "a two-minute test
-- interval" on a 20 GB test LUN. The seed does not give the outstanding
-- I/Os; iomoon uses 16 (--qd changes it).
local presets = require "iomoon.presets"

local function preset(name)
  local p = presets.get(name)
  p.meta = { spec = presets.name(p), preset = name }
  return p
end

return {
  name = "io-analyzer",
  description = "seed 004's VMware I/O Analyzer presets: Max Read/Write IOPS, Exchange 2007, SQL 64k",
  source = "seed 004: VMware I/O Analyzer (a web front end to IOMeter) on a Synology RS2414RP+",
  size = "20g",
  name_width = 16,
  defaults = { qd = 16, duration = "2m" },
  phases = function()
    return { preset "Max Read IOPS", preset "Max Write IOPS", preset "Exchange 2007", preset "SQL 64k" }
  end,
}
