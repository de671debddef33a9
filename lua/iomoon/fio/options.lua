-- iomoon.fio.options: fio's everyday options beyond the core ones that
-- fio/map.lua reads itself: flow (loops, startdelay, wait_for, exitall),
-- safety (readonly, allow_mounted_write), errors (continue_on_error,
-- verify_fatal), rates (rate, rate_min), verification's extras,
-- io_uring's flags, and the options said to change nothing here. Each
-- is mapped onto a phase field, onto a step of the runner
-- (fio/plans.lua: meta.fio), or refused with the reason; doc/import.md's
-- table says which. The files options are fio/files.lua's, not here.
local job = require "iomoon.fio.job"
local errors = require "iomoon.errors"
local input_error = errors.input

local options = {}

-- Options accepted with a note of their own (what iomoon does instead):
-- option -> the note. Said once per option on stderr and in the plan.
options.SAID = {
  fallocate = "iomoon creates a missing file at its size and fills it before reading (fallocate has no effect)",
  overwrite = "iomoon fills a new file before its first phase: every block exists, as with overwrite=1",
  allow_mounted_write = "iomoon's own rule holds: a mounted device or one holding a filesystem is written only "
    .. "with --allow-write --force",
  iodepth_low = "iomoon refills each slot as it completes (fio's default, iodepth_low = iodepth)",
  iodepth_batch_complete_min = "iomoon reaps every completion there is at each wait",
  iodepth_batch_complete_max = "iomoon reaps every completion there is at each wait",
  cpus_allowed = "iomoon places its own worker threads (the result's cpu.worker_max_pct says how busy)",
  cpus_allowed_policy = "iomoon places its own worker threads (the result's cpu.worker_max_pct says how busy)",
  cpumask = "iomoon places its own worker threads (the result's cpu.worker_max_pct says how busy)",
  io_submit_mode = "iomoon's workers submit their own I/O (io_submit_mode=inline)",
  verify_interval = "iomoon's verification unit is 4 KiB (512 bytes where sizes are not whole 4 KiB)",
  verify_backlog = "iomoon checks what it wrote in a read-back pass after the job",
  verify_backlog_batch = "iomoon checks what it wrote in a read-back pass after the job",
  verify_state_save = "iomoon always keeps its verification state (the state directory, doc/lua-api.md)",
  verify_state_load = "iomoon always reads its verification state (the state directory, doc/lua-api.md)",
  fixedbufs = "iomoon's io_uring registers its buffers already (result.engine_features)",
  registerfiles = "iomoon's io_uring registers its files already (result.engine_features)",
  nonvectored = "iomoon's io_uring issues plain (non-vectored) reads and writes already",
  sqthread_poll_cpu = "the kernel places io_uring's polling thread",
  rate_cycle = "the window of rate_min: iomoon's per-interval samples of that length",
  thread = "iomoon's workers are threads",
  verify_dump = "iomoon names each bad unit in the result (first_errors: offset, expected, found), writing no dump files",
  create_serialize = "iomoon creates and fills every file before the first phase runs",
  ignore_error = "iomoon goes on past every error (continue_on_error) and counts each in the result's errors, "
    .. "these too (fio does not count them)",
  verify_async = "iomoon checks what it wrote in a read-back pass after the job (no checking threads beside it)",
  flow_sleep = "iomoon's flow jobs share one stream's mix: the ratio holds per I/O, with no sleep",
}

-- fio's other names for these options
options.ALIASES = {
  timeout = "runtime", ratemin = "rate_min", threads = "thread", fill_fs = "fill_device", ss = "steadystate",
  steadystate_duration = "ss_dur", steadystate_ramp_time = "ss_ramp", steadystate_check_interval = "ss_interval",
}

-- Options read by options.apply (or by map.lua with these helpers)
options.MAPPED = {
  "sync", "continue_on_error", "verify_fatal", "readonly", "end_fsync", "trim_percentage", "max_latency",
  "offset_increment", "loops", "startdelay", "rate", "rate_min", "rate_iops_min", "verify_pattern",
  "verify_only", "sqthread_poll", "hipri", "wait_for", "exitall", "fill_device", "steadystate", "ss_dur",
  "ss_ramp", "ss_interval", "latency_target", "latency_window", "latency_percentile", "latency_run",
  "random_sequence_stride", "zonesize", "zoneskip", "zonerange", "exit_what", "prio", "prioclass",
  "cmdprio_percentage", "cmdprio_class", "cmdprio", "cmdprio_bssplit", "iodepth_mode", "flow", "flow_id", "nfs_url",
}

options.FLAGS = { readonly = true, exitall = true, fill_device = true, verify_only = true, hipri = true,
  sqthread_poll = true, fixedbufs = true, registerfiles = true, nonvectored = true, end_fsync = true,
  overwrite = true, thread = true, latency_run = true }

--- Register these options with iomoon.fio.job (its OPTIONS, ALIASES and FLAGS).
function options.register()
  for k in pairs(options.SAID) do job.OPTIONS[k] = "said" end
  for _, k in ipairs(options.MAPPED) do job.OPTIONS[k] = "map" end
  for k, v in pairs(options.ALIASES) do job.ALIASES[k] = v end
  for k in pairs(options.FLAGS) do job.FLAGS[k] = true end
  -- zonemode: strided zones are taken; zbd (zoned block devices) is not
  job.OPTIONS.zonemode = function(v)
    local m = tostring(v or ""):lower()
    if m == "strided" or m == "none" then return "map" end
  end
end

--- The size of a `size=`/`offset=` value given as a percentage of a
-- target of `whole` bytes (nil when it is not one); what names it.
function options.percent_of(s, whole, what)
  local pct = tostring(s):match("^%s*(%d+%.?%d*)%%%s*$")
  if not pct then return nil end
  pct = tonumber(pct)
  if pct <= 0 or pct > 100 then input_error("%s: '%s' is not a percentage above 0, at most 100", what, s) end
  if not whole then
    input_error("%s: '%s' is a share of the file or device, and it does not exist yet (give a size: 1g)", what, s)
  end
  return math.floor(whole * pct / 100)
end

--- rw's ':N' modifier: for a random rw (rw=randread:8), N I/Os are one
-- random and N-1 sequential, as IOMeter's percent random 100/N; for a
-- sequential one, N bytes (a size, fio's units) skipped after each I/O,
-- or back with -N (rw=read:-8k reads backwards at 4k): the spec's skip.
-- Returns the rw without it, the random share it gives and the skip (nil:
-- none).
function options.rw_modifier(rw, what, kb)
  local base, n = rw:match("^(%a+):(.*)$")
  if not base then return rw end
  if not base:match("^rand") then
    local minus, size = n:match("^%s*(%-?)%s*(.-)%s*$")
    if size == "" then
      input_error("%s=%s: ':' needs a size after it (a hole of N bytes after each I/O, or -N back: rw=read:-8k)",
        what, rw)
    end
    local skip = job.size(size, kb or 1024, what)
    if skip == 0 then return base end
    return base, nil, minus == "-" and -skip or skip
  end
  local k = math.tointeger(tonumber(n))
  if not k or k < 1 or math.type(k) ~= "integer" then
    input_error("%s=%s: ':%s' is not a count of I/Os per random offset (1 or more)", what, rw, n)
  end
  return base, 100 / k
end

--- exit_what (with exitall): "group" (fio's default) and "stonewall" end
-- the job's phase with its first job, as iomoon's phases are fio's
-- stonewall groups; "all" ends the run too (no later phase runs).
function options.exit_what(c)
  local v = c.v("exit_what")
  if v == nil then return "group" end
  v = tostring(v):lower()
  if v ~= "group" and v ~= "stonewall" and v ~= "all" then
    input_error("%s: '%s' is not one of fio's exit_what values (group, stonewall, all)", c.what("exit_what"), v)
  end
  if not c.v("exitall") then
    input_error("%s: needs exitall (fio's exit_what says what exitall ends)", c.what("exit_what"))
  end
  return v
end

-- ioprio(2)'s classes by fio's numbers (prioclass, cmdprio_class)
local PRIO_CLASS = { "rt", "be", "idle" }

-- One value of fio's int[,int] (reads, writes) priority options: the
-- same for both directions the job does, or refused.
local function prio_value(c, k, lo, hi, share)
  if c.v(k) == nil then return nil end
  local v = job.per_dir(c.v(k), nil, function(p) return job.int(p, c.what(k), lo, hi) end)
  local r, w = share[1] > 0 and v[1] or nil, share[2] > 0 and v[2] or nil
  if r and w and r ~= w then
    input_error("%s=%s: a value per direction (iomoon gives one priority to reads and writes alike)", c.what(k),
      tostring(c.v(k)))
  end
  return r or w or v[1]
end

--- fio's I/O priorities: prio/prioclass the job's own (the workers'
-- ioprio), cmdprio_percentage with cmdprio_class (default 1, rt) and
-- cmdprio (default 0) a share of its I/Os (cmdprio; io_uring, libaio).
function options.priorities(c, spec, engine, share)
  if c.v("cmdprio_bssplit") then
    input_error("%s: priorities by block size (iomoon gives one share of all a job's I/Os a priority: "
      .. "cmdprio_percentage)", c.what("cmdprio_bssplit"))
  end
  if c.v("prio") ~= nil or c.v("prioclass") ~= nil then
    local cl = c.v("prioclass") and job.int(c.v("prioclass"), c.what("prioclass"), 1, 3) or 2 -- fio: be by default
    local lv = c.v("prio") and job.int(c.v("prio"), c.what("prio"), 0, 7) or 0
    c.set(spec, "ioprio", PRIO_CLASS[cl] .. ":" .. lv, "prioclass", "prio")
  end
  local pct = prio_value(c, "cmdprio_percentage", 0, 100, share)
  if pct == nil then
    for _, k in ipairs { "cmdprio_class", "cmdprio" } do
      if c.v(k) ~= nil then input_error("%s: needs cmdprio_percentage (the share of I/Os it is for)", c.what(k)) end
    end
    return
  end
  if engine ~= "io_uring" and engine ~= "libaio" then
    input_error("%s: fio gives a share of I/Os their own priority with ioengine=io_uring or libaio only",
      c.what("cmdprio_percentage"))
  end
  if pct == 0 then return end
  local cl = prio_value(c, "cmdprio_class", 1, 3, share) or 1
  local lv = prio_value(c, "cmdprio", 0, 7, share) or 0
  c.set(spec, "cmdprio", { pct = pct, ioprio = PRIO_CLASS[cl] .. ":" .. lv }, "cmdprio_percentage", "cmdprio_class",
    "cmdprio")
end

--- fio's flow (a weight in the group's flow counter, not 0), or nil; a
-- flow_id (several counters) is refused.
function options.flow(c)
  if c.v("flow_id") ~= nil then
    input_error("%s: several flow counters (iomoon's flow is the group's one)", c.what("flow_id"))
  end
  if c.v("flow") == nil then return nil end
  local f = math.tointeger(tonumber(tostring(c.v("flow"))))
  if not f or f == 0 then input_error("%s: '%s' is not a flow weight (a whole number, not 0)", c.what("flow"),
    tostring(c.v("flow"))) end
  return f
end

--- The rates of a job in IOPS per direction (reads, writes, trims), from
-- rate_iops and rate (bytes/s, through each direction's mean block size
-- mean_bs[d]); nil when neither is given.
function options.rates(c, kb, mean_bs)
  local iops = c.v("rate_iops") and job.per_dir(c.v("rate_iops"), 0, function(p) return job.int(p, c.what("rate_iops"), 0) end)
  local bw = c.v("rate") and job.per_dir(c.v("rate"), 0, function(p) return job.size(p, kb, c.what("rate")) end)
  if not iops and not bw then return nil end
  if iops and bw then input_error("%s: give rate or rate_iops, not both", c.what("rate")) end
  if bw then
    iops = {}
    for d = 1, 3 do iops[d] = bw[d] / mean_bs[d] end
  end
  return iops
end

-- continue_on_error's values (fio's HOWTO): none/0 stop at the first error
local CONTINUE = { none = false, ["0"] = false, write = true, read = true, io = true, verify = true, all = true,
  ["1"] = true }

-- fio's sync=: 0/none, 1/sync (O_SYNC), dsync (O_DSYNC)
local SYNC = { ["0"] = "none", none = "none", ["1"] = "sync", sync = "sync", dsync = "dsync", ["true"] = "sync",
  ["false"] = "none" }

-- steadystate criteria (fio's HOWTO): what is tracked and how it is judged
local SS = { iops = { "iops", "range" }, iops_slope = { "iops", "slope" }, bw = { "bw", "range" },
  bw_slope = { "bw", "slope" }, lat = { "lat", "range" }, lat_slope = { "lat", "slope" } }

local function time_s(c, k, unit_us)
  return job.time_us(c.v(k), unit_us or 1e6, c.what(k)) / 1e6
end

-- zonemode=strided with zonesize and zoneskip: the job's I/O in zones of
-- zonesize, zoneskip apart; the runner runs a phase per zone (a profile of
-- the device along its length, each zone its own result). zbd (zoned
-- block devices) is refused: iomoon has no zone management.
local function zones_of(c, fio_meta, kb)
  local mode = c.v("zonemode")
  if mode == nil or mode == "none" then
    for _, k in ipairs { "zonesize", "zoneskip", "zonerange" } do
      if c.v(k) and mode == nil then
        if k ~= "zonesize" or not c.v("zoneskip") then
          input_error("%s: needs zonemode=strided (fio's zones of zonesize, zoneskip apart)", c.what(k))
        end
        mode = "strided"
      end
    end
    if mode == nil or mode == "none" then return end
  end
  if mode == "zbd" then
    input_error("%s: zbd (a zoned block device: zones written in order, reset, appended to) is not supported; "
      .. "iomoon has no zone management", c.what("zonemode"))
  end
  if mode ~= "strided" then input_error("%s: '%s' is not none, strided or zbd", c.what("zonemode"), mode) end
  if not c.v("zonesize") then input_error("%s: zonemode=strided needs zonesize=", c.what("zonemode")) end
  local size = job.size(c.v("zonesize"), kb, c.what("zonesize"))
  local skip = c.v("zoneskip") and job.size(c.v("zoneskip"), kb, c.what("zoneskip")) or 0
  if c.v("zonerange") and job.size(c.v("zonerange"), kb, c.what("zonerange")) ~= size then
    input_error("%s: a zone range other than zonesize is not supported (each zone is read once, whole)",
      c.what("zonerange"))
  end
  if size <= 0 then input_error("%s: give a zone size above zero", c.what("zonesize")) end
  fio_meta.zones = { size = size, skip = skip }
end

-- steadystate=CRIT:LIMIT[%], ss_dur, ss_ramp, ss_interval: the runner's
-- steady-state plan (fio/plans.lua)
local function steady_of(c, fio_meta)
  local v = c.v("steadystate")
  if not v then
    for _, k in ipairs { "ss_dur", "ss_ramp", "ss_interval" } do
      if c.v(k) then input_error("%s: needs steadystate=CRITERION:LIMIT (iops_slope:0.3%%)", c.what(k)) end
    end
    return
  end
  local crit, limit, pct = tostring(v):lower():match("^(%a[%a_]*):(%d+%.?%d*)(%%?)$")
  if not crit or not SS[crit] then
    input_error("%s: '%s' is not CRITERION:LIMIT (iops, iops_slope, bw, bw_slope, lat, lat_slope; 0.3 or 0.3%%)",
      c.what("steadystate"), v)
  end
  local dur = c.v("ss_dur") and time_s(c, "ss_dur") or 0
  if dur <= 0 then input_error("%s: ss_dur: missing (the window steady state is judged over, e.g. 30s)", c.what("steadystate")) end
  local interval = c.v("ss_interval") and time_s(c, "ss_interval") or 1
  if interval <= 0 or dur / interval < 2 or dur / interval > 100000 then
    input_error("%s: ss_dur %gs over ss_interval %gs is not 2 or more samples", c.what("ss_dur"), dur, interval)
  end
  fio_meta.steadystate = { track = SS[crit][1], judge = SS[crit][2], limit = tonumber(limit), pct = pct == "%",
    window = math.floor(dur / interval + 0.5), interval_s = interval, ramp_s = c.v("ss_ramp") and time_s(c, "ss_ramp") or 0,
    criterion = crit .. ":" .. limit .. pct }
end

-- latency_target, latency_window, latency_percentile: the runner's search
-- of the deepest queue whose percentile stays under the target
local function latency_of(c, fio_meta, qd)
  if not c.v("latency_target") then
    for _, k in ipairs { "latency_window", "latency_percentile", "latency_run" } do
      if c.v(k) then input_error("%s: needs latency_target (the bound, e.g. 10ms)", c.what(k)) end
    end
    return
  end
  local target_us = job.time_us(c.v("latency_target"), 1, c.what("latency_target"))
  if target_us <= 0 then input_error("%s: give a bound above zero", c.what("latency_target")) end
  local window = c.v("latency_window") and time_s(c, "latency_window", 1) or 1
  if window <= 0 then window = 1 end
  local pct = tonumber(c.v("latency_percentile") or 100)
  if not pct or pct <= 0 or pct > 100 then
    input_error("%s: '%s' is not a percentile (above 0, at most 100)", c.what("latency_percentile"),
      tostring(c.v("latency_percentile")))
  end
  fio_meta.latency_target = { bound_us = target_us, window_s = window, percentile = pct, max_qd = qd }
end

-- iodepth_mode=stepped:LOW-HIGH/INC,RAMP/RUN (a fio newer than 3.33): a
-- probe at iodepth, then steps from LOW % to HIGH % by INC: under 100 % a
-- rate of that share of the probe's IOPS at depth iodepth x 100 / HIGH,
-- from 100 % on the depth iodepth x pct / HIGH, unpaced; each step RAMP
-- then RUN (bare: seconds).
local function stepped_of(c, fio_meta, qd)
  local v = c.v("iodepth_mode")
  if v == nil or tostring(v):lower() == "normal" then return end
  local lo, hi, inc, ramp, run = tostring(v):lower():match("^stepped:(%d+)%-(%d+)/(%d+),([^/]+)/(.+)$")
  lo, hi, inc = tonumber(lo), tonumber(hi), tonumber(inc)
  if not lo or lo < 1 or hi < lo or inc < 1 or hi > 1000 then
    input_error("%s: '%s' is not normal or stepped:LOW-HIGH/INC,RAMP/RUN (percentages 1 to 1000 of the job's "
      .. "depth, LOW <= HIGH, INC above 0: stepped:10-130/5,5/30)", c.what("iodepth_mode"), tostring(v))
  end
  fio_meta.stepped = { low = lo, high = hi, inc = inc, max_qd = qd,
    ramp_s = job.time_us(ramp, 1e6, c.what("iodepth_mode")) / 1e6, run_s = job.time_us(run, 1e6, c.what("iodepth_mode")) / 1e6 }
  if fio_meta.stepped.run_s <= 0 then input_error("%s: a step's run of 0 (give RUN above zero)", c.what("iodepth_mode")) end
end

--- The options of one job (c: map.lua's context) onto its spec, phase
-- fields (ph) and the runner's steps (returned as a table for meta.fio,
-- or nil). share: the rw shares; numjobs; engine; kb.
function options.apply(c, spec, ph, share, engine, numjobs, kb)
  local fio_meta = {}
  local writes = share[2] > 0 or share[3] > 0
  if c.v("sync") ~= nil then
    local s = SYNC[tostring(c.v("sync")):lower()]
    if not s then input_error("%s: '%s' is not 0, 1, sync or dsync", c.what("sync"), tostring(c.v("sync"))) end
    if s ~= "none" and share[2] > 0 then c.set(spec, "sync", s, "sync") end
  end
  if c.v("continue_on_error") ~= nil then
    local v = CONTINUE[tostring(c.v("continue_on_error")):lower()]
    if v == nil then
      input_error("%s: '%s' is not none, write, read, io, verify or all", c.what("continue_on_error"),
        tostring(c.v("continue_on_error")))
    end
    if v then c.set(ph, "on_error", "continue", "continue_on_error") end
  end
  if c.v("ignore_error") ~= nil then
    -- fio: these errors neither stop the job nor count; iomoon goes on past every error and counts them
    if not (c.v("continue_on_error") and CONTINUE[tostring(c.v("continue_on_error")):lower()]) then
      input_error("%s: ignores errors without continue_on_error; iomoon's phase stops at the first error unless "
        .. "told to go on (give continue_on_error=all)", c.what("ignore_error"))
    end
  end
  if c.v("readonly") and job.bool(c.v("readonly"), c.what("readonly")) and writes and not options.verify_only(c) then
    input_error("%s: the job writes (rw=%s) and fio's readonly forbids every write: iomoon refuses it too",
      c.what("readonly"), tostring(c.v("rw") or "read"))
  end
  if c.v("trim_percentage") and tonumber(c.v("trim_percentage")) ~= 0 and c.v("verify") then
    input_error("%s: fio trims that share of the blocks it verifies; iomoon's verification refuses trims (a trimmed "
      .. "range holds nothing to check)", c.what("trim_percentage"))
  end
  if c.v("random_sequence_stride") and not tostring(c.v("random_distribution") or ""):match("^sequence:") then
    input_error("%s: only with random_distribution=sequence (a list of block indices)", c.what("random_sequence_stride"))
  end
  if c.v("verify_pattern") then
    input_error("%s: not supported (fio writes and checks those bytes; iomoon writes its own checked data: "
      .. "verify=crc32c, or pattern = \"offset\" with verify = \"offset\" in a plan)", c.what("verify_pattern"))
  end
  if c.v("end_fsync") and job.bool(c.v("end_fsync"), c.what("end_fsync")) and share[2] > 0 then
    fio_meta.end_fsync = true
  end
  -- unlink=1: fio deletes the job's file when the job is done (files of its own, not devices)
  if c.v("unlink") and job.bool(c.v("unlink"), c.what("unlink")) then fio_meta.unlink = true end
  if c.v("max_latency") then
    fio_meta.max_latency_us = job.time_us(c.v("max_latency"), 1, c.what("max_latency"))
  end
  if c.v("startdelay") then
    local lo, hi = tostring(c.v("startdelay")):match("^([^-]+)-(.+)$")
    if lo then
      input_error("%s: a random range '%s' is not supported (give one delay)", c.what("startdelay"), c.v("startdelay"))
    end
    local s = time_s(c, "startdelay")
    if s > 0 then fio_meta.startdelay_s = s end
  end
  if c.v("rate_min") or c.v("rate_iops_min") then
    local k = c.v("rate_min") and "rate_min" or "rate_iops_min"
    local l = job.per_dir(c.v(k), 0, function(p)
      return k == "rate_min" and job.size(p, kb, c.what(k)) or job.int(p, c.what(k), 0) end)
    local cycle = c.v("rate_cycle") and job.time_us(c.v("rate_cycle"), 1000, c.what("rate_cycle")) / 1e6 or 1
    if cycle < 0.01 then input_error("%s: shorter than 10 ms (iomoon's shortest interval)", c.what("rate_cycle")) end
    -- a direction the job does not do has no rate to keep (fio checks only the ones it does)
    fio_meta.rate_min = { kind = k == "rate_min" and "bytes" or "iops", read = share[1] > 0 and l[1] * numjobs or 0,
      write = share[2] > 0 and l[2] * numjobs or 0,
      cycle_s = cycle }
    c.set(ph, "interval", cycle, "rate_cycle")
  end
  options.priorities(c, spec, engine, share)
  if engine == "io_uring" then
    if c.v("sqthread_poll") and job.bool(c.v("sqthread_poll"), c.what("sqthread_poll")) then
      c.set(ph, "sqpoll", true, "sqthread_poll")
    end
    if c.v("hipri") and job.bool(c.v("hipri"), c.what("hipri")) then c.set(ph, "iopoll", true, "hipri") end
  end
  if c.v("fill_device") and job.bool(c.v("fill_device"), c.what("fill_device")) then
    fio_meta.fill_device = true
  end
  zones_of(c, fio_meta, kb)
  steady_of(c, fio_meta)
  latency_of(c, fio_meta, spec.qd or 1)
  stepped_of(c, fio_meta, spec.qd or 1)
  if fio_meta.stepped and (fio_meta.steadystate or fio_meta.latency_target) then
    input_error("%s: with steadystate or latency_target in one job (run them as two jobs)", c.what("iodepth_mode"))
  end
  if fio_meta.steadystate and fio_meta.latency_target then
    input_error("%s: steadystate and latency_target in one job (run them as two jobs)", c.what("latency_target"))
  end
  return next(fio_meta) and fio_meta or nil
end

--- A job on a URL (an iSCSI LUN, an NBD export) without size=: the
-- runner sets its quota to the target's size times loops (fio reads or
-- writes the whole LUN once).
function options.whole_target(c, spec)
  spec.whole_target = { loops = options.loops(c) }
end

--- How many times the job runs its size (loops=N)
function options.loops(c)
  return c.v("loops") and job.int(c.v("loops"), c.what("loops"), 1, 1000000) or 1
end

--- The verify pass's on_error from verify_fatal (nil: iomoon's default)
function options.verify_on_error(c)
  if c.v("verify_fatal") == nil then return nil end
  return job.bool(c.v("verify_fatal"), c.what("verify_fatal")) and "stop" or "continue"
end

--- Whether the job only verifies (fio's verify_only: no writes, the check
-- of what an earlier run wrote)
function options.verify_only(c)
  return c.v("verify_only") ~= nil and job.bool(c.v("verify_only"), c.what("verify_only"))
end

--- The offset_increment of a job's clones (bytes; 0 when not given)
function options.offset_increment(c, kb, whole)
  local v = c.v("offset_increment")
  if not v then return 0 end
  return options.percent_of(v, whole, c.what("offset_increment")) or job.size(v, kb, c.what("offset_increment"))
end

return options
