-- fio job files and command lines as iomoon phases, field by field
-- (lua/iomoon/fio*.lua); run by tests/78-fio.t in its $TMP, with the
-- fixtures' directory as arg[1].
local tap = dofile(arg[1] .. "/tap.lua")
local iomoon = require "iomoon"
local fio = require "iomoon.fio"
local job = require "iomoon.fio.job"
local dir = arg[1] .. "/fio"

local function read(name)
  local f = assert(io.open(dir .. "/" .. name, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- a and b the same plain data (tables compared by content)
local function same(a, b, path)
  path = path or ""
  if type(a) ~= type(b) then return false, path .. ": " .. tostring(a) .. " vs " .. tostring(b) end
  if type(a) ~= "table" then
    if a == b then return true end
    return false, path .. ": " .. tostring(a) .. " vs " .. tostring(b)
  end
  for k, v in pairs(a) do
    local ok, why = same(v, b[k], path .. "." .. tostring(k))
    if not ok then return false, why end
  end
  for k in pairs(b) do
    if a[k] == nil then return false, path .. "." .. tostring(k) .. ": missing on the left" end
  end
  return true
end

local function is(got, want, what)
  local ok, why = same(got, want)
  tap.ok(ok, "%s%s", what, ok and "" or (" (" .. tostring(why) .. ")"))
end

-- ---- units, as fio's parser reads them ----
is(job.size("4k"), 4096, "4k is 4096 (kb_base=1024, fio's default)")
is({ job.size("4kb"), job.size("4K"), job.size("4KB"), job.size("1m"), job.size("2G"), job.size("1t") },
  { 4096, 4096, 4096, 1048576, 2147483648, 1 << 40 }, "k, kb, K, KB, m, G, t are powers of 1024")
is({ job.size("4kib"), job.size("1MiB") }, { 4000, 1000000 }, "with kb_base=1024, kib and MiB are powers of 1000")
is({ job.size("4k", 1000), job.size("4kib", 1000), job.size("1mb", 1000) }, { 4000, 4096, 1000000 },
  "with kb_base=1000: k is 1000, kib is 1024")
is({ job.size("0x1000"), job.size("512") }, { 4096, 512 }, "hex and plain")
tap.refuses("'1.5k' has a fraction", function() job.size("1.5k", 1024, "bs") end, "a fraction (fio reads 1.5k as 1)")
tap.refuses("'0.5' has a fraction", function() job.time_us("0.5", 1e6, "runtime") end, "a fraction of a time")
tap.refuses("'4q' is not a size", function() job.size("4q", 1024, "x") end, "an unknown unit")
is({ job.time_us("60", 1e6), job.time_us("1m", 1e6), job.time_us("500ms", 1e6), job.time_us("2h", 1e6) },
  { 60e6, 60e6, 500e3, 7200e6 }, "runtime: a bare number is seconds; m is minutes")
is({ job.time_us("250", 1), job.time_us("1ms", 1) }, { 250, 1000 }, "thinktime: a bare number is microseconds")
-- a time of a second or more as a duration iomoon reads (it was "1e+06us", an unknown unit)
is({ job.duration_text(job.time_us("1s", 1)), job.duration_text(job.time_us("1500ms", 1)),
  job.duration_text(job.time_us("90", 1e6)), job.duration_text(job.time_us("2d", 1)), job.duration_text(1234567) },
  { "1s", "1500ms", "90s", "48h", "1234567us" }, "thinktime=1s, 1500ms, 90, 2d, 1234567: durations in the largest whole unit")
for _, t in ipairs { "1s", "10s", "1500ms", "2m", "1h" } do
  local p = fio.phases("[t]\nrw=read\nsize=1m\nioengine=null\nthinktime=" .. t .. "\n", "t.fio")[1]
  local ok, e = pcall(iomoon.check, p)
  is({ ok, ok or tostring(e), iomoon.duration(p.think) }, { true, true, iomoon.duration(t) },
    "thinktime=" .. t .. ": the phase checks, thinking as long")
end
tap.refuses("runtime: '99999999999d' is too long %(iomoon times at most 106000 days, about 290 years%)",
  function() job.time_us("99999999999d", 1e6, "runtime") end, "a runtime past iomoon's longest: too long, with the limit")
tap.refuses("thinktime: '99999999999999999999999' is too long", function() job.time_us("99999999999999999999999", 1,
  "thinktime") end, "a thinktime past it (more digits than an integer holds)")
is(job.time_us("106000d", 1), 106000 * 86400 * 1000000, "the longest time itself")
is(job.per_dir("4k,8k", 4096, function(p) return job.size(p) end), { 4096, 8192, 8192 }, "bs=4k,8k: trims as writes")
is(job.per_dir(",8k,", 4096, function(p) return job.size(p) end), { 4096, 8192, 4096 }, "bs=,8k,: defaults where empty")

-- ---- every option, field by field (options.fio) ----
local ps = fio.phases(read("options.fio"), "options.fio")
is(#ps, 10, "options.fio: nine jobs, each after a stonewall, and the verify pass: 10 phases")
is(ps[1], { name = "seqread", target = { path = "a.dat", size = 8388608 }, engine = "libaio", direct = true,
  workers = 1, qd = 16, batch = 4, mix = { { bs = 65536, read = 100, random = 0 } }, region = 8388608,
  bytes = 8388608 }, "seqread: rw=read bs=64k iodepth=16 iodepth_batch_submit=4, size from [global]: bytes")
is(ps[2], { name = "mixed", target = { path = "a.dat", size = 8388608 }, engine = "libaio", direct = true,
  workers = 2, qd = 1, mix = { { bs = 4096, read = 100, random = 100, weight = 70 },
    { bs = 16384, read = 0, random = 100, weight = 30 } }, region = 8388608, duration = 2, ramp = 0.5,
  random_map = true },
  "mixed: randrw 70 % reads, bs=4k,16k a spec per direction, numjobs=2 workers, time_based: no quota")
is(ps[3], { name = "split", target = { { path = "b.dat", size = 5242880 }, { path = "c.dat", size = 5242880 } },
  engine = "io_uring", direct = false, workers = 2, qd = 1,
  mix = { { bs = { { 4096, 50 }, { 65536, 30 }, { 131072, 20 } }, read = 0, random = 80, align = 4096 } },
  region = { offset = 1048576, size = 4194304 }, bytes = 4194304, ios = 100, random_map = true },
  "split: bssplit with a share left open, two files share size=8m, offset, io_size, number_ios, buffered=1")
is(ps[4], { name = "paced", target = { path = "sub/d.dat", size = 8388608 }, engine = "psync", direct = true,
  workers = 1, qd = 1, mix = { { bs = { 4096, 8192, 12288, 16384 }, read = 100, random = 100 } },
  region = 8388608, bytes = 8388608, duration = 60, rate = { iops = 500, arrival = "poisson" }, dist = "zipf:1.2",
  seed = 42 }, "paced: bsrange, rate_iops with poisson, zipf, randseed, directory, psync at depth 1, runtime=1m")
is(ps[5], { name = "think", target = { path = "a.dat", size = 8388608 }, engine = "libaio", direct = true,
  workers = 1, qd = 1, mix = { { bs = 4096, read = 75, random = 0 } }, region = 8388608, bytes = 8388608,
  think = { burst = 8, delay = "250us" }, dist = "zoned:60/10:30/20:10/70",
  meta = { description = "bursts of 8, then 250 us idle" } },
  "think: rw=rw rwmixwrite=25, thinktime (us) with thinktime_blocks, zoned, description")
is(ps[6], { name = "wal", engine = "null", direct = false, workers = 1, qd = 1,
  mix = { { bs = 8000, read = 0, random = 0 } }, region = 1000000, bytes = 1000000, fdatasync = 1 },
  "wal: name=, ioengine=null on a region, kb_base=1000 sizes, fdatasync")
is(ps[7].mix, { { bs = 4096, read = 0, trim = 100, random = 100 } }, "randtrim: all trims, random")
is(ps[7].duration, 10, "runtime=10s")
is({ ps[8].mix, ps[8].think, ps[8].dist }, { { { bs = 4096, read = 0, trim = 50, random = 0 } }, "1ms", "pareto:0.9" },
  "trimwrite: half trims, half writes; thinktime=1ms; pareto")
is({ ps[9].verify, ps[9].fsync, ps[9].bytes }, { "crc32c", 32, 4194304 }, "verify=crc32c, fsync=32")
is(ps[10], { name = "verify (verify)", target = { path = "v.dat", size = 4194304 }, engine = "libaio", direct = true,
  workers = 1, qd = 1, bs = 4096, region = 4194304, verify = "crc32c", verify_only = true, skip_unwritten = true },
  "verify: the read-back pass follows the writing job (do_verify)")
for i, p in ipairs(ps) do
  local ok, e = pcall(iomoon.check, p)
  tap.ok(ok, "options.fio phase %d (%s) passes iomoon.check%s", i, p.name, ok and "" or (": " .. tostring(e)))
end

-- ---- groups: jobs run together as streams; stonewall starts the next phase ----
local gs = fio.phases(read("groups.fio"), "groups.fio")
is(#gs, 2, "groups.fio: two phases (data + log together, then readback)")
is({ gs[1].streams[1].name, gs[1].streams[2].name, gs[1].duration, gs[1].engine }, { "data", "log", 0.3, "libaio" },
  "phase 1: the group's jobs are its streams; runtime and engine are the phase's")
tap.ok(gs[1].streams[1].target == gs[1].streams[2].target and gs[1].streams[1].target.size == 4194304,
  "the streams on one file share one target table, at the larger size (offset 2m + 2m)")
is(gs[1].streams[2].region, { offset = 2097152, size = 2097152 }, "log: its own region by offset and size")
is({ gs[2].name, gs[2].streams }, { "readback", nil }, "phase 2: the job after the stonewall, alone")
tap.ok(gs[1].bytes == nil and gs[1].rate == nil, "a phase with streams has no quota or rate of its own")

-- ---- ${VAR} substitution ----
local env = { FIO_TEST_BS = "16k", FIO_TEST_DIR = "/x", FIO_TEST_SIZE = "2m" }
local secs = job.parse(read("env.fio"), "env.fio", function(k) return env[k] end)
local js = job.jobs(secs)
is({ js[1].o.bs.value, js[1].o.filename.value, js[1].o.size.value }, { "16k", "/x/e.dat", "2m" },
  "${VAR} replaced from the environment, in [global] and in jobs")
tap.refuses("env.fio:3: %${FIO_TEST_DIR} is not set", function()
  job.parse(read("env.fio"), "env.fio", function(k) return k == "FIO_TEST_BS" and "4k" or nil end)
end, "an unset variable, by name and line")
tap.refuses("x.fio:2: 'include' is not supported", function() job.parse("[a]\ninclude other.fio\n", "x.fio") end,
  "include")
tap.refuses("x.fio:1: 'bs' comes before any %[section%]", function() job.parse("bs=4k\n[a]\n", "x.fio") end,
  "an option before any section")

-- ---- unsupported options: one error naming each, or skipped ----
tap.refuses("3 fio options iomoon does not take: u.fio:4: 'zonemode', u.fio:9: 'fdp', u.fio:12: 'exitall_on_error'",
  function() fio.phases(read("unsupported.fio"), "u.fio") end, "every unsupported option in one error, with its line")
local sk = fio.phases(read("unsupported.fio"), "u.fio", { skip = true })
is(sk[1].meta.fio_skipped, { "u.fio:4: 'zonemode'", "u.fio:9: 'fdp'", "u.fio:12: 'exitall_on_error'" },
  "--skip-unsupported: the options left out, in the result's meta")
is({ sk[1].mix, sk[1].bytes }, { { { bs = 4096, read = 100, random = 100 } }, 4194304 }, "... and the rest as given")
is({ fio.phases("[a]\nrw=read:-8k\nsize=1m\nfilename=a.dat\n", "x")[1].mix,
    fio.phases("[a]\nrw=write:1k\nkb_base=1000\nsize=1m\nfilename=a.dat\n", "x")[1].mix[1].skip },
  { { { bs = 4096, read = 100, random = 0, skip = -8192 } }, 1000 },
  "rw=read:-8k: the spec's skip, back 8 KiB after each I/O; rw=write:1k with kb_base=1000: 1000 bytes on")
tap.refuses("x:2: rw=read:: ':' needs a size", function() fio.phases("[a]\nrw=read:\nsize=1m\n", "x") end,
  "rw=read: with nothing after the colon")
is(fio.phases("[a]\nrw=randread:8\nsize=1m\nfilename=a.dat\n", "x")[1].mix, { { bs = 4096, read = 100, random = 12.5 } },
  "rw=randread:8: one random offset in 8 (IOMeter's percent random)")
tap.refuses("x:2: ioengine: 'posixaio' is not supported", function() fio.phases("[a]\nioengine=posixaio\nsize=1m\n", "x") end,
  "an engine iomoon does not have")
tap.refuses("x:2: verify: 'md5' is not supported", function() fio.phases("[a]\nverify=md5\nrw=write\nsize=1m\n", "x") end,
  "a verification iomoon does not have")
tap.refuses("x:1: size: missing %(nofile.dat does not exist", function() fio.phases("[a]\nfilename=nofile.dat\n", "x") end,
  "a new file without size")
tap.refuses("x:3: time_based: runtime: missing", function() fio.phases("[a]\nsize=1m\ntime_based\n", "x") end,
  "time_based without runtime")

-- ---- network engines: nbd's uri=, libiscsi's filename (fio's '\:' escapes, or none) ----
local nb = fio.phases("[n]\nioengine=nbd\nuri=nbd://127.0.0.1/x\nrw=randread\nsize=8m\n", "n.fio")[1]
is({ nb.engine, nb.target, nb.bytes, nb.region }, { "nbd", { path = "nbd://127.0.0.1/x" }, 8388608, 8388608 },
  "ioengine=nbd: the uri is the target, used at its own size; size= is the region and the quota")
for _, f in ipairs { "iscsi\\://10.0.0.1/iqn.2001-04.com.example:disk/0", "iscsi://10.0.0.1/iqn.2001-04.com.example:disk/0" } do
  local is1 = fio.phases("[i]\nioengine=libiscsi\nfilename=" .. f .. "\nsize=1m\n", "i.fio")[1]
  is({ is1.engine, is1.target.path }, { "iscsi", "iscsi://10.0.0.1/iqn.2001-04.com.example:disk/0" },
    "ioengine=libiscsi: filename=" .. f .. " is the iscsi URL")
end

-- ---- the command line is a one-job job file ----
local seed = { "--randrepeat=1", "--ioengine=libaio", "--direct=1", "--gtod_reduce=1", "--name=test", "--filename=test",
  "--bs=4k", "--iodepth=128", "--size=2G", "--readwrite=randwrite" }
local opts = {}
for _, a in ipairs(seed) do
  local k, v = a:match("^%-%-([%w_]+)=(.*)$")
  opts[#opts + 1] = { key = k, value = v }
end
local cl = fio.load({ { sections = fio.cli_sections(opts), name = "command line" } }, {})
is(cl[1], { name = "test", target = { path = "test", size = 2147483648 }, engine = "libaio", direct = true, workers = 1,
  qd = 128, batch = 1, mix = { { bs = 4096, read = 0, random = 100 } }, region = 2147483648, bytes = 2147483648,
  random_map = true },
  "seed 001's command line: a 2 GiB file created, 4k random writes at depth 128 until 2 GiB are done")
local jf = fio.phases("[global]\nrandrepeat=1\nioengine=libaio\ndirect=1\ngtod_reduce=1\n[test]\nfilename=test\n"
  .. "bs=4k\niodepth=128\nsize=2G\nreadwrite=randwrite\n", "seed.fio")
is(cl, jf, "... the same phase as the same options in a job file")

-- ---- convert: the Lua plan gives the same phases ----
for _, name in ipairs { "options.fio", "groups.fio" } do
  local src = fio.convert(dir .. "/" .. name)
  local chunk = assert(load(src, "=" .. name .. ".lua"))
  local ran, checked = {}, 0
  local real_run, real_check = iomoon.run, iomoon.check
  iomoon.run = function(p) ran[#ran + 1] = p end
  iomoon.check = function(p) checked = checked + 1; return real_check(p) end
  local ok, err = pcall(chunk)
  iomoon.run, iomoon.check = real_run, real_check
  tap.ok(ok, "convert %s: the plan runs%s", name, ok and "" or (": " .. tostring(err)))
  is(ran, fio.phases(read(name), dir .. "/" .. name), "convert " .. name .. ": the same phases as the job file")
  tap.ok(checked == #ran, "convert %s: every phase checked before the first runs (%d)", name, checked)
  tap.ok(src:find("%-%- ioengine=libaio") ~= nil, "convert %s: fields commented with their fio options", name)
end

-- ---- fio.json of a result that still has its histograms: all of fio's percentiles ----
local r = iomoon.run { name = "nul", engine = "null", bs = "4k", ios = 2000 }
local js = fio.json({ r })
tap.ok(js:find('"fio version": "iomoon%-') and js:find('"jobname": "nul"') and js:find('"99.500000"')
  and js:find('"1.000000"'), "fio.json: fio's version field, the job's name, fio's 17 percentiles from the histogram")
local reads = js:match('"read": {.-"total_ios": (%d+)')
tap.ok(tonumber(reads) == r.read.ios and r.read.ios > 0, "fio.json: read.total_ios is the result's reads (%s)", reads)
