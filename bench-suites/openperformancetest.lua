-- openperformancetest: the four tests of OpenPerformanceTest.icf, the IOMeter
-- file of the VMware community's "unofficial storage performance" thread,
-- as seed 003 ran it (a VMware guest: vmdk against in-guest iSCSI).
--
--   Max Throughput-100%Read    32 KB, 100 % read,   0 % random
--   RealLife-60%Rand-65%Read    8 KB,  65 % read,  60 % random
--   Max Throughput-50%Read     32 KB,  50 % read,   0 % random
--   Random-8k-70%Read           8 KB,  70 % read, 100 % random
--
-- The file's usual settings: 64 outstanding I/Os on a 4 GB test area
-- (--qd and --size override them); 60 s per test here (--time).
return {
  name = "openperformancetest",
  description = "seed 003's OpenPerformanceTest.icf: four tests, 64 outstanding I/Os, 4 GiB",
  source = "seed 003: OpenPerformanceTest.icf from the VMware unofficial storage performance thread",
  size = "4g",
  name_width = 26,
  defaults = { qd = 64, duration = "60s" },
  phases = {
    { name = "Max Throughput-100%Read", bs = "32k", read = 100, random = 0 },
    { name = "RealLife-60%Rand-65%Read", bs = "8k", read = 65, random = 60 },
    { name = "Max Throughput-50%Read", bs = "32k", read = 50, random = 0 },
    { name = "Random-8k-70%Read", bs = "8k", read = 70, random = 100 },
  },
}
