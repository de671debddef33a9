-- fio's everyday options (lua/iomoon/fio/options.lua) as phase fields,
-- runner steps (meta.fio) or refusals, one by one; run by
-- tests/78-fio-options.t in its $TMP, with the fixtures' directory as arg[1].
local tap = dofile(arg[1] .. "/tap.lua")
local fio = require "iomoon.fio"

local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end
local function show(v)
  if type(v) ~= "table" then return tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. "=" .. show(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end
local function is(got, want, what)
  tap.ok(same(got, want), "%s%s", what, same(got, want) and "" or (" (got " .. show(got) .. ", want " .. show(want) .. ")"))
end

-- the phases of a job file's text, and the notes fio.load gave
local function load(text, opts)
  local ph, _, notes = fio.load({ { text = "[global]\nfilename=a.dat\nsize=4m\n" .. text, name = "x.fio" } }, opts or {})
  return ph, notes
end
local function one(text) return load(text)[1] end
local function has_note(notes, pat)
  for _, n in ipairs(notes) do if n:find(pat) then return true end end
  return false
end

-- ---- everyday options onto phase fields ----
is(one("[w]\nrw=write\nsync=1\n").sync, "sync", "sync=1: sync = \"sync\" (O_SYNC)")
is(one("[w]\nrw=write\nsync=dsync\n").sync, "dsync", "sync=dsync: sync = \"dsync\"")
is(one("[r]\nrw=read\nsync=1\n").sync, nil, "sync=1 on a job that only reads: nothing to open for writing")
is(one("[w]\nrw=randwrite\ncontinue_on_error=all\n").on_error, "continue", "continue_on_error=all: on_error = \"continue\"")
is(one("[w]\nrw=randwrite\ncontinue_on_error=none\n").on_error, nil, "continue_on_error=none: stop (iomoon's default)")
local vf = load("[v]\nrw=write\nverify=crc32c\nverify_fatal=0\n")
is({ #vf, vf[2].verify_only, vf[2].on_error }, { 2, true, "continue" }, "verify_fatal=0: the read-back pass goes on past a bad unit")
is(load("[v]\nrw=write\nverify=crc32c\nverify_fatal=1\n")[2].on_error, "stop", "verify_fatal=1: it stops at the first")
local vo = load("[v]\nrw=write\nverify=crc32c\nverify_only\n")
is({ #vo, vo[1].verify_only, vo[1].name }, { 1, true, "v (verify)" }, "verify_only: only the read-back pass, no writes")
is(one("[t]\ntimeout=3\ntime_based\n").duration, 3.0, "timeout is runtime")
is(one("[l]\nrw=read\nloops=3\n").bytes, 3 * 4194304, "loops=3: the size three times over")
local pct = io.open("p.dat", "wb"); pct:write(string.rep("\0", 1 << 20)); pct:close()
is(fio.phases("[h]\nfilename=p.dat\nsize=50%\noffset=25%\nrw=read\n", "x")[1].region, { offset = 262144, size = 524288 },
  "size=50%, offset=25% of a 1 MiB file: its middle half")
tap.refuses("size: '50%%' is a share of the file or device, and it does not exist yet", function()
  fio.phases("[h]\nfilename=nofile.dat\nsize=50%\n", "x") end, "size as a percentage of a file that does not exist")
local oi = one("[c]\nrw=randwrite\nsize=1m\nnumjobs=3\noffset_increment=1m\n")
is({ #oi.streams, oi.streams[2].region, oi.streams[3].region, oi.streams[1].workers, oi.target },
  { 3, { offset = 1048576, size = 1048576 }, { offset = 2097152, size = 1048576 }, 1, nil },
  "offset_increment=1m with numjobs=3: three streams, each its own megabyte")
is(one("[r]\nrw=randrw:4\n").mix, { { bs = 4096, read = 50, random = 25 } }, "rw=randrw:4: one random offset in 4")
local rr, rn = load("[r]\nrw=randrw\nrate_iops=300,100\n")
is({ rr[1].rate, rr[1].mix[1].read }, { { iops = 400, arrival = "fixed" }, 75 },
  "rate_iops=300,100: reads at 300 and writes at 100, as fio paces each direction")
tap.ok(has_note(rn, "fio paces each direction at its rate"), "... said in a note")
is(one("[r]\nrw=randrw\nrate_iops=500\n").rate.iops, 1000, "rate_iops=500 on randrw: 500 reads and 500 writes a second")
is(one("[r]\nrw=read\nbs=64k\nrate=8m\n").rate.iops, 128, "rate=8m at 64k: 128 IOPS")
tap.refuses("a rate for some of the job's directions only", function() one("[r]\nrw=randrw\nrate_iops=,100\n") end,
  "a rate for writes only on a mixed job")
is(one("[r]\nrw=randread\nrate_iops=100\nrate_process=poisson\n").rate.arrival, "poisson", "rate_process=poisson")
local rm = one("[r]\nrw=read\nrate_min=1m\nrate_cycle=500\n")
is({ rm.interval, rm.meta.fio.rate_min.read, rm.meta.fio.rate_min.cycle_s }, { 0.5, 1048576, 0.5 },
  "rate_min=1m, rate_cycle=500: checked on each 0.5 s interval")
local ur = fio.phases("[u]\nioengine=io_uring\nfilename=a.dat\nsize=1m\nsqthread_poll=1\nhipri\nfixedbufs\nregisterfiles\n", "x")[1]
is({ ur.sqpoll, ur.iopoll }, { true, true }, "io_uring: sqthread_poll is sqpoll, hipri is iopoll")
local _, said = load("[s]\nrw=read\nfallocate=none\noverwrite=1\niodepth_low=2\niodepth_batch_complete_min=2\n"
  .. "cpus_allowed=0-1\ncpus_allowed_policy=split\nio_submit_mode=offload\nverify_interval=512\nverify_state_save=1\n"
  .. "allow_mounted_write=1\nthread\nfixedbufs\nnonvectored=1\n")
tap.ok(#said >= 13 and has_note(said, "x.fio:6: fallocate") and has_note(said, "allow_mounted_write: iomoon's own rule holds")
  and has_note(said, "cpus_allowed: iomoon places"), "options accepted with what iomoon does instead, each said (%d notes)", #said)
local md = one("[m]\nrw=randread\nstartdelay=2\nmax_latency=50ms\nend_fsync=1\n")
is(md.meta.fio, { startdelay_s = 2.0, max_latency_us = 50000 }, "startdelay, max_latency: the runner's steps (end_fsync: only a writing job)")
is(one("[m]\nrw=write\nend_fsync=1\n").meta.fio, { end_fsync = true }, "end_fsync on a writing job")

-- ---- flow: wait_for, exitall ----
local wf = load("[a]\nrw=read\n[b]\nrw=read\n[c]\nrw=read\nwait_for=a\n")
is({ #wf, wf[1].streams and #wf[1].streams, wf[2].name }, { 2, 2, "c" }, "wait_for=a: c runs after a's group")
tap.refuses("wait_for: 'z' is not a job before this one", function() load("[a]\nrw=read\nwait_for=z\n") end, "wait_for an unknown job")
local ex = load("[a]\nrw=read\ntime_based\nruntime=5\nexitall\n[b]\nrw=read\ntime_based\nruntime=2\n")
is(ex[1].duration, 2.0, "exitall: the group ends with its first job (the shortest runtime)")
local exs = load("[a]\nrw=read\nexitall\nexit_what=all\n[b]\nrw=read\n[c]\nstonewall\nrw=read\n")
is({ exs[1].end_first, exs[1].duration, exs[1].meta.fio.exit_all, exs[2].end_first }, { true, nil, true, nil },
  "exitall with jobs that end by size: end_first (the first job to end ends the phase); exit_what=all: the run")
tap.refuses("exit_what: 'job' is not one of fio's exit_what values", function()
  load("[a]\nrw=read\nexitall\nexit_what=job\n") end, "exit_what=job: named, with fio's values")
tap.refuses("exit_what: needs exitall", function() load("[a]\nrw=read\nexit_what=all\n") end, "exit_what without exitall")

-- ---- safety and refusals with their reasons ----
tap.refuses("readonly forbids every write: iomoon refuses it too", function() load("[w]\nrw=randwrite\nreadonly\n") end,
  "readonly on a writing job")
is(one("[r]\nrw=randread\nreadonly\n").mix[1].read, 100, "readonly on a reading job: runs")
tap.refuses("verify_pattern: not supported %(fio writes and checks those bytes", function()
  load("[v]\nrw=write\nverify=pattern\nverify_pattern=0xff\n") end, "verify_pattern, with the reason")
tap.refuses("trim_percentage: fio trims that share of the blocks it verifies", function()
  load("[v]\nrw=write\nverify=crc32c\ntrim_percentage=10\n") end, "trim_percentage with verify")
tap.refuses("fill_device: on a.dat fio writes until the filesystem is full", function()
  load("[f]\nrw=write\nfill_device=1\n") end, "fill_device on a file")

-- ---- zones: strided, a phase per zone at run time; zbd not taken ----
is(one("[z]\nrw=read\nbs=64k\nzonemode=strided\nzonesize=256m\nzoneskip=2g\n").meta.fio.zones, { size = 268435456,
  skip = 2147483648 }, "zonemode=strided, zonesize=256m, zoneskip=2g: the runner's zones")
tap.refuses("x.fio:6: 'zonemode'", function() one("[z]\nrw=read\nzonemode=zbd\n") end, "zonemode=zbd, not taken (named with its line)")
tap.refuses("zonerange: a zone range other than zonesize", function()
  one("[z]\nzonemode=strided\nzonesize=1m\nzonerange=4m\n") end, "a zone range other than the zone size")

-- ---- plans: steady state and latency target ----
local ss = one("[s]\nrw=randread\ntime_based\nruntime=60\nss=iops_slope:0.5%\nss_dur=10s\nss_ramp=2\n").meta.fio.steadystate
is(ss, { track = "iops", judge = "slope", limit = 0.5, pct = true, window = 10, interval_s = 1.0, ramp_s = 2.0,
  criterion = "iops_slope:0.5%" }, "steadystate=iops_slope:0.5%, ss_dur=10s, ss_ramp=2: the plan's criterion and window")
tap.refuses("ss: 'iops_median:2' is not CRITERION:LIMIT", function() one("[s]\nss=iops_median:2\nss_dur=5\n") end,
  "an unknown steady-state criterion")
tap.refuses("needs steadystate=CRITERION:LIMIT", function() one("[s]\nss_dur=5\n") end, "ss_dur without steadystate")
local lt = one("[l]\nrw=randread\nioengine=libaio\niodepth=64\nlatency_target=500000\nlatency_window=5000\n"
  .. "latency_percentile=99.9\n").meta.fio.latency_target
is(lt, { bound_us = 500000, window_s = 0.005, percentile = 99.9, max_qd = 64 },
  "latency_target=500000 (us), latency_window=5000 (us), latency_percentile=99.9: the search's bound, window, depths")
local plans = require "iomoon.fio.plans"
is({ plans.judge({ 100, 102, 98 }, "range", 2.5, true) }, { true, 2.0, 100.0 }, "judge iops:2.5%: every sample within 2.5 % of the mean")
is({ (plans.judge({ 100, 110, 120 }, "slope", 5, true)) }, { false }, "judge iops_slope:5%: a slope of 10 a sample is 9 % of 110")

-- ---- ${VAR}: --set, else the environment ----
tap.refuses("%${NOPE} is not set %(fio would put an empty string there%): give %-%-set NOPE=VALUE", function()
  fio.phases("[a]\nfilename=${NOPE}\nsize=1m\n", "x") end, "an unset variable names --set")
is(fio.load({ { text = "[a]\nfilename=${NOPE}\nsize=1m\n", name = "x" } }, { set = { "NOPE=s.dat" } })[1].target.path,
  "s.dat", "--set NOPE=s.dat gives it")
-- ---- libiscsi: the LUN has a size ----
local isc = fio.phases("[i]\nioengine=libiscsi\nfilename=iscsi\\://10.0.0.1/iqn.2001-04.com.example\\:d/0\nrw=randread\n", "i.fio")[1]
is({ isc.bytes, isc.meta.fio.whole_target }, { nil, { loops = 1 } }, "libiscsi without size=: the LUN's own size, read when it runs")
-- ---- max_latency, rate_min: the phase stops at the interval that crosses them (phase.stop_if) ----
local iomoon = require "iomoon"
local sr = iomoon.run { name = "sl", engine = "sim", sim_latency = "2ms", bs = 4096, duration = "30s", interval = "100ms",
  stop_if = { latency = "500us" } }
is({ sr.stopped.by, sr.stopped.limit, sr.stopped.value >= 2e6, sr.stopped.t_s == sr.intervals[1].t_s, sr.seconds < 30 },
  { "latency", 500000, true, true, true }, "stop_if.latency under sim's 2 ms: stopped at the first interval's tick, saying which and how slow")
local ok, err = pcall(plans.run, { name = "ml", engine = "sim", sim_latency = "2ms", bs = 4096, duration = "30s",
  interval = "100ms", meta = { fio = { max_latency_us = 500 } } })
tap.ok(not ok and tostring(err):find("max_latency: an I/O took %d+ us, over the 500 us asked; the phase stopped at 0%.1%d*s")
  ~= nil, "%s", "max_latency=500 over sim's 2 ms: the run fails at the first interval, naming the limit and the value: " .. tostring(err))
local rr = iomoon.run { name = "sr", engine = "sim", sim_latency = "100us", bs = 4096, read = 0, duration = "30s",
  interval = "100ms", rate = { iops = 200 }, stop_if = { write_iops = 1000 } }
is({ rr.stopped.by, rr.stopped.limit, rr.stopped.value < 1000, rr.seconds < 30 }, { "write_iops", 1000, true, true },
  "stop_if.write_iops over the paced 200: stopped at the first whole interval")
tap.refuses("phase.stop_if: unknown field 'latncy'.*latency", function()
  iomoon.run { engine = "sim", bs = 4096, duration = "1s", stop_if = { latncy = "1ms" } } end,
  "stop_if: a misspelt field named, with the nearest")
-- the phase's skip (what rw=read:-8k becomes): a size, or back with "-"; anything else names phase.skip
tap.refuses("phase.skip: ", function() iomoon.check { name = "s", engine = "null", bs = "4k", skip = "8q" } end,
  "skip = \"8q\": exit 2 naming phase.skip")
tap.refuses("phase.mix%[1%]%.skip: .*past 1 EiB", function()
  iomoon.check { name = "s", engine = "null", mix = { { bs = "4k", skip = "-2048p" } } } end, "a step back of 2 EiB: refused")
-- seq_start (where rw=read:-8k from an offset starts): inside the region, not with verify_only
local function starts(text) local p = one(text) return { p.seq_start, p.region } end
is(starts("[b]\nfilename=b.dat\nbs=4k\nrw=read:-8k\nsize=64k\noffset=16k\n"), { 40960, { offset = 16384, size = 65536 } },
  "rw=read:-8k, size=64k, offset=16k: seq_start 40k (fio's first read at 56k)")
is(starts("[b]\nfilename=b.dat\nbs=4k\nrw=read:-8k\nsize=64k\noffset=100k\n")[1], 57344,
  "... offset=100k, past the size: 8k before the region's end")
is(starts("[b]\nfilename=b.dat\nbs=4k\nrw=read:-8k\nsize=64k\noffset=64k\n")[1], nil, "... offset=64k, the size: at the offset")
is(starts("[b]\nfilename=b.dat\nbs=4k\nrw=read:8k\nsize=64k\noffset=16k\n")[1], nil, "rw=read:8k from an offset: at the offset")
tap.refuses("phase.seq_start: 65536 bytes is not inside the region", function()
  iomoon.check { name = "s", engine = "null", region = "64k", bs = "4k", seq_start = "64k" } end,
  "seq_start = \"64k\" in a 64k region: exit 2 naming phase.seq_start")
tap.refuses("phase.seq_start: 2 workers share the region", function()
  iomoon.check { name = "s", engine = "null", region = "64k", bs = "4k", workers = 2, seq_start = "40k" } end,
  "seq_start with 2 workers on one target: exit 2, their parts are 32k each")
tap.refuses("phase.seq_start: '1q' has an unknown unit", function()
  iomoon.check { name = "s", engine = "null", bs = "4k", seq_start = "1q" } end, "seq_start = \"1q\": named")
tap.refuses("phase.seq_start: given with verify_only", function()
  iomoon.check { name = "s", target = { path = "sv.dat", size = "64k" }, bs = "4k", verify = "crc32c", verify_only = true,
    seq_start = "4k" } end, "seq_start with verify_only: refused, naming it")
-- I/O priorities: prio/prioclass the workers' ioprio, cmdprio_* a share of the I/Os
local pr = load("[p]\nrw=randrw\nioengine=io_uring\nprio=5\ncmdprio_percentage=30,30\ncmdprio_class=2\ncmdprio=3\n")
is({ pr[1].ioprio, pr[1].cmdprio }, { "be:5", { pct = 30, ioprio = "be:3" } },
  "prio=5 alone: be:5 (fio's default class); cmdprio_percentage=30,30, cmdprio_class=2, cmdprio=3: 30 % at be:3")
tap.refuses("cmdprio_bssplit: priorities by block size", function()
  load("[p]\nrw=randread\nioengine=libaio\ncmdprio_bssplit=64k/100\n") end, "cmdprio_bssplit: refused, saying why")
tap.refuses("cmdprio_percentage=10,30: a value per direction", function()
  load("[p]\nrw=randrw\nioengine=libaio\ncmdprio_percentage=10,30\n") end, "cmdprio_percentage differing per direction")
tap.refuses("phase.ioprio: 'top' is not an I/O priority", function()
  iomoon.check { name = "p", engine = "null", bs = "4k", ioprio = "top" } end, "ioprio = \"top\": named, with the classes")
-- flow: a group's jobs as the specs of one stream, weighed by |flow|
local fl = load("[global]\nsize=1m\nfilename=f.dat\ntime_based\nruntime=1\n[a]\nrw=read\nflow=2\n[b]\nrw=read:-8k\nflow=-6\n")
is({ #fl, fl[1].streams, fl[1].mix[1].name, fl[1].mix[1].weight, fl[2] == nil and fl[1].mix[2].weight, fl[1].mix[2].skip },
  { 1, nil, "a", 25.0, 75.0, -8192 }, "flow=2 beside flow=-6: one stream, specs a 25 % and b 75 % (its rw=read:-8k kept)")
local flo = load("[global]\nsize=1m\nfilename=f.dat\noffset=64k\n[a]\nrw=read\nflow=2\n[b]\nrw=read:-8k\nflow=-2\n")
is({ #flo, flo[1].mix[2].skip, flo[1].mix[2].region.offset, flo[1].seq_start }, { 1, -8192, 65536, nil },
  "... from offset=64k: one stream still (b's seq_start not kept: a spec's stream starts at its region's start)")
tap.refuses("flow: job 'b' differs from 'a' in direct", function()
  load("[global]\nsize=1m\nfilename=f.dat\n[a]\nrw=read\nflow=1\n[b]\nrw=read\ndirect=1\nflow=1\n") end,
  "flow jobs that differ in more than rw, bs, size, offset and depth")
tap.refuses("flow: job 'b' differs from 'a' in target", function()
  load("[global]\nsize=1m\ntime_based\nruntime=1\n[a]\nfilename=a.dat\nrw=read\nflow=1\n[b]\nfilename=b.dat\nrw=read\nflow=1\n") end,
  "flow jobs on two files: refused (one stream has one target; b's I/O went to a.dat)")
tap.refuses("flow: job 'b' differs from 'a' in rate", function()
  load("[global]\nfilename=f.dat\nsize=1m\ntime_based\nruntime=1\nrw=read\n[a]\nflow=1\nrate_iops=100\n[b]\nflow=1\nrate_iops=1000\n") end,
  "flow jobs with rate_iops 100 and 1000: refused (b's rate was dropped for a's)")
tap.refuses("end by size, and their sizes are not in the ratio of their flow", function()
  load("[global]\nsize=1m\nfilename=f.dat\n[a]\nrw=read\nflow=2\n[b]\nrw=read:-8k\nflow=-6\n") end,
  "flow jobs ending by size, sizes not in the flows' ratio: refused (fio does 256 + 256, one mix 128 + 384)")
is(#load("[global]\nfilename=f.dat\n[a]\nsize=1m\nrw=read\nflow=1\n[b]\nsize=3m\nrw=randread\nflow=3\n"), 1,
  "flow jobs ending by size, sizes in the flows' ratio (1m : 3m, flow 1 : 3): taken")
tap.refuses("ignore_error: ignores errors without continue_on_error", function()
  load("[e]\nrw=randwrite\nignore_error=,ENOSPC\n") end, "ignore_error without continue_on_error")
is(load("[e]\nrw=randwrite\ncontinue_on_error=write\nignore_error=,ENOSPC\n")[1].on_error, "continue",
  "ignore_error with continue_on_error: on_error = continue (every error counted)")
tap.refuses("random_sequence_stride: only with random_distribution=sequence", function()
  load("[s]\nrw=randread\nrandom_sequence_stride=1\n") end, "random_sequence_stride without a sequence")
tap.refuses("phase.dist: 'sequence:2,x': give 1 to 64 block indices", function()
  iomoon.check { name = "s", engine = "null", bs = "4k", random = 100, dist = "sequence:2,x" } end, "dist = \"sequence:2,x\"")
print("1.." .. tap.n)
