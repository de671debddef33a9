-- burn-in: before a disk goes into service, write all of it, then read it
-- back and check it, under random and sequential load, pass after pass.
--
--   fill            sequential 1 MiB writes over the whole area, every
--                   4 KiB carrying a header and a crc32c (verify "crc32c")
--   pass N: verify  the whole area read back in order, every unit checked
--   pass N: random  4 KiB random reads and writes, 50/50, reads checked
--   pass N: rewrite sequential 1 MiB writes over the whole area
--   final verify    the whole area read back and checked once more
--
-- A bad unit is an error named for what it is (corrupt, misdirected: data
-- written for another offset, lost_write: an older generation than the
-- last write there), with its offset, and the suite exits 1. The verdict
-- (iomoon.report.verdict) says PASS only with zero errors in every phase
-- and a final verify that checked every unit of the area; else FAIL, exit 1. --time sets
-- the random phases' length (default 60 s); the fill, verify and rewrite
-- passes always cover the whole area. Two passes.

return {
  name = "burn-in",
  description = "fill, then verify / random / rewrite passes, every read checked (crc32c, generations)",
  source = "the burn-in practice of the field: write everything, read everything back, under load",
  size = "1g",
  name_width = 26,
  verdict = "burn-in",
  defaults = { qd = 8 },
  phases = function(opts)
    local passes = 2
    local whole = { bs = "1m", random = 0, verify = "crc32c" }
    local function covering(t)
      local p = { bytes = opts.area_bytes }
      for k, v in pairs(whole) do p[k] = v end
      for k, v in pairs(t) do p[k] = v end
      return p
    end
    local phases = { covering { name = "fill", read = 0 } }
    for n = 1, passes do
      phases[#phases + 1] = covering { name = "pass " .. n .. ": verify", read = 100, verify_only = true }
      phases[#phases + 1] = { name = "pass " .. n .. ": random", bs = "4k", read = 50, random = 100,
        verify = "crc32c", duration = "60s" }
      phases[#phases + 1] = covering { name = "pass " .. n .. ": rewrite", read = 0 }
    end
    phases[#phases + 1] = covering { name = "final verify", read = 100, verify_only = true }
    return phases
  end,
}
