-- mpi.lua: one phase of 1 s on sim (run under mpirun)
require("iomoon").run { name = "mpi", engine = "sim", sim_latency = "100us", qd = 4, bs = "4k", duration = "1s" }
