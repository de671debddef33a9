-- mdtest: metadata rates over a tree of directories and small files.
--
-- mdtest's rows (directory creation and stat, file creation, stat, read,
-- removal, directory removal), each one pass over every file of the
-- tree: 2 workers (--workers; mdtest's ranks) each with a unique
-- directory of their own (mdtest -u), 10 directories of 100 files each
-- (-n 1000 per rank), 3901 bytes written and read per file (IO500's
-- mdtest-hard, -w 3901 -e 3901). --target is the directory the tree is
-- made in; --qd > 1 runs the operations asynchronously on io_uring.
local tree = { dirs = 10, files = 100, size = 3901 }
local function row(name, op) return { name = name, files = tree, op = op, workers = 2 } end
return {
  name = "mdtest",
  description = "mdtest's rows: directory creation and stat, file creation, stat, read, removal (2 x 1000 files of 3901 B)",
  source = "mdtest (github.com/hpc/ior, doc/mdtest.1); IO500 mdtest-hard sizes (io500.org)",
  phases = {
    row("Directory creation", "mkdir"),
    row("Directory stat", "dirstat"),
    row("File creation", "create"),
    row("File stat", "stat"),
    row("File read", "read"),
    row("File removal", "delete"),
    row("Directory removal", "rmdir"),
  },
}
