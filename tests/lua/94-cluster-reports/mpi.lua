-- mpi.lua DIR: one phase of 1 s on sim, 2 workers at qd 4, a file of its
-- own per rank in DIR (run under mpirun)
require("iomoon").run { name = "mpi", engine = "sim", sim_latency = "100us", qd = 4, workers = 2, bs = "4k",
  duration = "1s", target = { path = arg[1] .. "/mpi.{rank}.dat", size = "1m" } }
