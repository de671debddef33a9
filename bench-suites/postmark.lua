-- postmark: a mail server's small files (Jeffrey Katcher's PostMark, 1997).
--
-- A pool of 10,000 files of 500 bytes to 9.77 KB in 10 directories, made
-- before the measured time as PostMark makes its initial set; then its
-- transactions, each a create or a delete (bias 5: half each) and a read
-- or an append (bias 5), here as a mix of the four at 25 % each, in 512
-- byte blocks (PostMark's default block size); 100,000 operations (50,000
-- transactions), or --time; then every file deleted, as PostMark ends.
-- --target is the directory of the pool.
local pool = { dirs = 10, files = 1000,
  size = { { 500, 20 }, { "2k", 20 }, { "4k", 20 }, { "7k", 20 }, { 10000, 20 } } }
return {
  name = "postmark",
  description = "a mail server: PostMark's create/delete and read/append transactions over 10,000 small files",
  source = "J. Katcher, PostMark: A New File System Benchmark, NetApp TR3022 (1997); Debian's postmark defaults",
  phases = {
    { name = "transactions", files = pool, ops = { create = 25, delete = 25, read = 25, append = 25 },
      ios = 100000, bs = 512 },
    { name = "delete all", files = pool, op = "delete" },
    { name = "remove directories", files = pool, op = "rmdir" },
  },
}
