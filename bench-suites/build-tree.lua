-- build-tree: a source tree being built: many small reads and stats.
--
-- A checkout of 5,120 files of 2 to 32 KiB in a tree 3 levels deep and 8
-- wide (512 directories), then a build's lookups over it for 10 s (or
-- --time): stat 60 %, read 30 %, open 10 %, by 4 workers sharing the tree
-- (as a make -j4), then the tree removed. The shares are a model, not a
-- measurement: a build stats far more than it reads (make checks every
-- dependency's mtime; a compiler probes include paths).
local tree = { depth = 3, width = 8, files = 10, shared = true,
  size = { { "2k", 40 }, { "8k", 40 }, { "32k", 20 } } }
return {
  name = "build-tree",
  description = "a source tree built: a checkout, then stat 60 % / read 30 % / open 10 % by 4 workers",
  source = "iomoon's model of make -j4 over a source tree (doc/suites.md)",
  phases = {
    { name = "checkout", files = tree, op = "create", workers = 4 },
    { name = "build", files = tree, ops = { stat = 60, read = 30, open = 10 }, duration = "10s", workers = 4 },
    { name = "clean: files", files = tree, op = "delete", workers = 4 },
    { name = "clean: directories", files = tree, op = "rmdir", workers = 4 },
  },
}
