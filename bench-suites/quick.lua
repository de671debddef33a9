-- quick: the default characterization `make run` uses.
--
-- Five phases that tell most of a device's story in half a minute: small
-- random reads at queue depth 1 (latency) and 32 (IOPS), small random writes
-- at 32, and large sequential reads and writes (bandwidth). --time sets each
-- phase's measured time (default 5 s); --qd overrides every queue depth.
return {
  name = "quick",
  description = "4k random read QD1/QD32, 4k random write QD32, 1M sequential read/write",
  source = "the usual first look at a device: fio's and IOMeter's standard corners",
  size = "1g",
  phases = function(opts)
    local d = opts.time or "5s"
    return {
      { name = "4K; 100% Read; 100% random; QD 1", bs = "4k", read = 100, random = 100, qd = 1, duration = d },
      { name = "4K; 100% Read; 100% random; QD 32", bs = "4k", read = 100, random = 100, qd = 32, duration = d },
      { name = "4K; 0% Read; 100% random; QD 32", bs = "4k", read = 0, random = 100, qd = 32, duration = d },
      { name = "1M; 100% Read; 0% random; QD 8", bs = "1m", read = 100, random = 0, qd = 8, duration = d },
      { name = "1M; 0% Read; 0% random; QD 8", bs = "1m", read = 0, random = 0, qd = 8, duration = d },
    }
  end,
}
