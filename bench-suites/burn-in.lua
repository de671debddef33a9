-- burn-in: before a disk goes into service, write all of it, then read it
-- back and check it, under random and sequential load, pass after pass.
--
--   fill            sequential 1 MiB writes over the whole area, every
--                   8-byte word holding its own offset (pattern "offset")
--   pass N: verify  sequential reads of the whole area, every word checked
--   pass N: random  4 KiB random reads and writes, 50/50, reads checked
--   pass N: rewrite sequential 1 MiB writes over the whole area
--   final verify    the whole area read back and checked once more
--
-- Any mismatch is an error (EILSEQ) with the offset of the first, and ends
-- the suite with exit status 1. The offset pattern catches corrupted data
-- and blocks written to the wrong place; it cannot tell a lost write (an
-- old copy holds the same pattern): that needs the generation numbers of
-- crc32c verification, which this suite will use when the core has it.
-- --time sets the random phases' length (default 60 s); the fill, verify
-- and rewrite passes always cover the whole area. Two passes.
local iomoon = require "iomoon"

return {
  name = "burn-in",
  description = "fill, then verify / random / rewrite passes, every read checked (offset pattern)",
  source = "the burn-in practice of the field: write everything, read everything back, under load",
  size = "1g",
  name_width = 26,
  defaults = { qd = 8 },
  phases = function(opts)
    local passes = 2
    local whole = { bs = "1m", random = 0, pattern = "offset" }
    local function covering(t)
      local p = { bytes = opts.area_bytes }
      for k, v in pairs(whole) do p[k] = v end
      for k, v in pairs(t) do p[k] = v end
      return p
    end
    local phases = { covering { name = "fill", read = 0 } }
    for n = 1, passes do
      phases[#phases + 1] = covering { name = "pass " .. n .. ": verify", read = 100, verify = "offset" }
      phases[#phases + 1] = { name = "pass " .. n .. ": random", bs = "4k", read = 50, random = 100,
        verify = "offset", duration = "60s" }
      phases[#phases + 1] = covering { name = "pass " .. n .. ": rewrite", read = 0 }
    end
    phases[#phases + 1] = covering { name = "final verify", read = 100, verify = "offset" }
    return phases
  end,
}
