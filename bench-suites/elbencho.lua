-- elbencho: its file phases over dirs x files per thread.
--
-- elbencho -d -w -r --stat -F -D -t 2 -n 10 -N 100 -s 4k -b 4k DIR: mkdirs,
-- write (create each file, 4 KiB in one block), read, stat, delfiles,
-- deldirs, each one pass over 2 threads x 10 directories x 100 files.
-- --target is DIR; --workers is -t; --qd > 1 runs them on io_uring.
local tree = { dirs = 10, files = 100, size = "4k" }
local function phase(name, op) return { name = name, files = tree, op = op, workers = 2, bs = "4k" } end
return {
  name = "elbencho",
  description = "elbencho's phases: mkdirs, write, read, stat, delfiles, deldirs (2 x 10 x 100 files of 4 KiB)",
  source = "elbencho (github.com/breuner/elbencho, README: -d -w -r --stat -F -D, -n dirs, -N files per dir)",
  phases = {
    phase("MKDIRS", "mkdir"),
    phase("WRITE", "create"),
    phase("READ", "read"),
    phase("STAT", "stat"),
    phase("RMFILES", "delete"),
    phase("RMDIRS", "rmdir"),
  },
}
