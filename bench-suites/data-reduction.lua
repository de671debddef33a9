-- data-reduction: the same mixes with the data a ZFS or array owner asks
-- about, side by side in one table.
--
-- 4K random writes (QD 32) and 64K sequential writes (QD 8), each with
-- incompressible data (iomoon's default), 2:1 and 4:1 compressible data,
-- 2:1 compressible and 2:1 deduplicable, and IOMeter's default "repeating
-- bytes" (one byte value per write: almost free to compress). Storage that
-- compresses or deduplicates inline (ZFS's lz4, Btrfs, all-flash arrays)
-- shows its gain row against row; storage that does not, the same figures.
-- Seed 000's FreeNAS figures were taken with IOMeter's repeating bytes on
-- ZFS with lz4: the last row of each mix is how they were measured.
-- --time sets each phase's measured time (default 10 s), --qd every queue
-- depth. Each phase's result.data says what its writes carried.
local DATA = {
  { "incompressible", {} },
  { "compress 2:1", { compress = 2 } },
  { "compress 4:1", { compress = 4 } },
  { "compress+dedupe 2:1", { compress = 2, dedupe = 2 } },
  { "repeating bytes", { pattern = "repeat" } },
}
local MIXES = {
  { "4K random write", { bs = "4k", read = 0, random = 100, qd = 32 } },
  { "64K seq write", { bs = "64k", read = 0, random = 0, qd = 8 } },
}

return {
  name = "data-reduction",
  description = "4k random and 64k sequential writes: incompressible, 2:1, 4:1, 2:1 + 2:1 dedupe, repeating bytes",
  source = "issue 27: what inline compression and dedupe (ZFS lz4, arrays) make of the data; seed 000's FreeNAS",
  size = "1g",
  phases = function(opts)
    local list = {}
    for _, m in ipairs(MIXES) do
      for _, d in ipairs(DATA) do
        local p = { name = m[1] .. "; " .. d[1], duration = opts.time or "10s" }
        for k, v in pairs(m[2]) do p[k] = v end
        for k, v in pairs(d[2]) do p[k] = v end
        list[#list + 1] = p
      end
    end
    return list
  end,
}
