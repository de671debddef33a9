-- power-cut: did the storage keep what it acknowledged? Write with
-- flushes until the power goes, then judge every unit against what the
-- storage had made durable (diskchecker.pl's procedure, with the record
-- of what was durable kept by iomoon itself).
--
--   write until the power goes  random 4 KiB writes with crc32c, an
--                   fdatasync every 16 writes of a slot; the durability
--                   record (what each flush made durable) is kept in the
--                   state directory: put it on another disk, one that
--                   keeps its power (--verify-state DIR)
--   after the crash the whole area read back and every unit classed
--                   (after_crash): durable, lost durable (the storage
--                   lied), unflushed kept or lost (allowed), torn,
--                   corrupt, misdirected, foreign
--
-- Cut the power during the first phase (--time sets its length, default
-- 10 minutes). After the reboot, run the check alone, with the same
-- directory: iomoon verify TARGET --after-crash --verify-state DIR (exit
-- 1 when a durable write was lost or a unit damaged). Run whole, without a cut,
-- the suite checks itself: every unit durable or unflushed, exit 0.
-- doc/lua-library.md, "Power cuts", has the procedure.

return {
  name = "power-cut",
  description = "write with flushes until the power goes, then judge what survived (after_crash)",
  source = "diskchecker.pl's power-cut procedure; the durability record is iomoon's",
  size = "1g",
  name_width = 28,
  defaults = { qd = 8 },
  phases = {
    { name = "write until the power goes", bs = "4k", read = 0, random = 100, verify = "crc32c",
      fdatasync = 16, duration = "10m" },
    { name = "after the crash", bs = "4k", read = 100, verify = "crc32c", verify_only = true, after_crash = true },
  },
}
