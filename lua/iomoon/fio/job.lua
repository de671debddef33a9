-- iomoon.fio.job: fio's job files read as fio reads them: sections,
-- options with their lines, ${VAR} substitution, and the values (sizes
-- with kb_base, times with each option's unit, per-direction lists).
-- fio/map.lua turns the jobs this returns into iomoon phases.
local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local input_error = errors.input

local job = {}

-- What each fio option is to iomoon: "map" (honoured, iomoon.fio.map reads it),
-- "noop" (changes only fio's bookkeeping: accepted, said to have no
-- effect), "said" (accepted with a note of its own: iomoon.fio.options).
-- An option in none is unsupported.
job.OPTIONS = {}
for _, k in ipairs {
  "name", "description", "rw", "rwmixread", "rwmixwrite", "bs", "bssplit", "bsrange", "blockalign",
  "iodepth", "iodepth_batch_submit", "numjobs", "size", "offset", "filename", "directory", "ioengine",
  "direct", "buffered", "runtime", "time_based", "ramp_time", "rate_iops", "rate_process", "thinktime",
  "thinktime_blocks", "random_distribution", "percentage_random", "randseed", "randrepeat", "fsync",
  "fdatasync", "verify", "do_verify", "stonewall", "new_group", "number_ios", "io_size", "kb_base", "uri",
  "norandommap", "buffer_compress_percentage", "dedupe_percentage", "dedupe_mode",
  "dedupe_working_set_percentage", "zero_buffers", "buffer_pattern",
} do job.OPTIONS[k] = "map" end
for _, k in ipairs {
  "group_reporting", "gtod_reduce", "lat_percentiles", "clat_percentiles", "slat_percentiles",
  "percentile_list", "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log", "log_avg_msec",
  "log_hist_msec", "per_job_logs", "disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement",
  "stats", "thread", "invalidate", "clocksource", "gtod_cpu", "unified_rw_reporting", "random_generator",
  "allrandrepeat", "significant_figures", "log_offset", "log_compression", "log_prio", "error_dump",
  "refill_buffers", "scramble_buffers", "buffer_compress_chunk", "dedupe_global",
} do job.OPTIONS[k] = "noop" end

-- fio's other names for options
job.ALIASES = {
  readwrite = "rw", iodepth_batch = "iodepth_batch_submit", blocksize = "bs", blocksize_range = "bsrange",
  ba = "blockalign", random_seed = "randseed", repeatable = "randrepeat", io_limit = "io_size",
}

-- options that are flags: given bare (or =1/=0)
job.FLAGS = {
  time_based = true, stonewall = true, new_group = true, group_reporting = true, thread = true,
  norandommap = true, gtod_reduce = true, per_job_logs = true, zero_buffers = true, refill_buffers = true,
  scramble_buffers = true, dedupe_global = true,
}

-- the other options iomoon reads that are booleans: given bare, they are 1
-- (fio's own rule: only a flag or a boolean may stand without a value)
local BOOLEANS = {
  buffered = true, create_on_open = true, direct = true, do_verify = true, end_fsync = true, exitall = true,
  hipri = true, randrepeat = true, sqthread_poll = true, sync = true, unlink = true, verify_fatal = true,
  readonly = true, fill_device = true, verify_only = true,
}

-- what a value looks like, for the message when one is missing
local EXAMPLE = { bs = "4k", rw = "randread", filename = "a.dat", directory = "/mnt/test", ioengine = "libaio",
  name = "job1", random_distribution = "zipf:1.2", rate = "10m", rate_iops = "1000", rate_min = "5m",
  rate_iops_min = "500", bsrange = "4k-64k", bssplit = "4k/50:64k/50", blockalign = "4k", percentage_random = "50",
  uri = "nbd://host/export", size = "1g", iodepth = "32", runtime = "60", numjobs = "4", offset = "0" }

--- Check that fio option opt ({key, given, value, where}) has the value
-- it needs: one that iomoon reads and that is no flag or boolean, given
-- bare or empty, is an input error naming the option and where
-- ("b.fio:5: bs: needs a value (bs=4k)"), as fio's "requires an argument".
function job.check_value(opt)
  local kind = job.OPTIONS[opt.key]
  if job.FLAGS[opt.key] or BOOLEANS[opt.key] or opt.key == "description" then return end
  if kind ~= "map" and type(kind) ~= "function" then return end
  if opt.value == nil or opt.value:match("^%s*$") then
    local given = opt.given or opt.key
    input_error("%s: %s: needs a value (%s=%s)", opt.where, given, given, EXAMPLE[opt.key] or "VALUE")
  end
end

--- The canonical name of fio option k.
function job.canonical(k)
  k = k:lower()
  return job.ALIASES[k] or k
end

-- fio's predefined keywords (fio's HOWTO, "Reserved keywords"): $pagesize,
-- $mb_memory, $ncpus.
local function keyword(name, machine)
  if name == "pagesize" then return "4096" end
  local m = machine()
  if name == "mb_memory" then return tostring((m.memory_bytes or 0) // (1 << 20)) end
  if name == "ncpus" then return tostring(m.cores or 1) end
end

--- s with ${VAR} replaced from env(name) and fio's $keywords; an unset
-- variable is an input error naming it and where.
function job.substitute(s, where, env, machine)
  s = s:gsub("%${([%w_]+)}", function(v)
    local val = env(v)
    if val == nil then
      input_error("%s: ${%s} is not set (fio would put an empty string there): give --set %s=VALUE, or set it in "
        .. "the environment", where, v, v)
    end
    return val
  end)
  return (s:gsub("%$([%a_]+)", function(v) return keyword(v, machine) end))
end

--- The sections of a job file's text: a list of { name =, line =,
-- opts = { {key =, value =, line =}, ... } } in order. src names the file
-- in messages. Options before the first section are an error, as in fio.
function job.parse(text, src, env, machine)
  env = env or os.getenv
  machine = machine or iomoon.machine
  local sections, cur = {}, nil
  local n = 0
  for raw in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local where = string.format("%s:%d", src, n)
    local l = raw:gsub("\r$", ""):match("^%s*(.-)%s*$")
    -- a comment starts a line, or follows a blank
    l = l:gsub("%s+[#;].*$", "")
    if l ~= "" and not l:match("^[#;]") then
      local sec = l:match("^%[(.*)%]$")
      if sec then
        if sec == "" then input_error("%s: an empty section name []", where) end
        cur = { name = sec, line = n, where = where, opts = {} }
        sections[#sections + 1] = cur
      elseif l:match("^include%s") or l == "include" then
        input_error("%s: 'include' is not supported (iomoon reads one job file: paste the included file's options in)",
          where)
      else
        local k, v = l:match("^([%w_]+)%s*=%s*(.-)$")
        if not k then k = l:match("^([%w_]+)$") end
        if not k then input_error("%s: '%s' is not an option (key=value, a bare flag, or [section])", where, l) end
        if not cur then input_error("%s: '%s' comes before any [section] (fio needs [global] or [job])", where, k) end
        if v then v = job.substitute(v, where, env, machine) end
        cur.opts[#cur.opts + 1] = { key = job.canonical(k), given = k, value = v, line = n, where = where }
        job.check_value(cur.opts[#cur.opts])
      end
    end
  end
  return sections
end

--- The jobs of parsed sections: each job's options over every [global]
-- before it (later options replace earlier ones), as fio reads them.
-- Returns jobs = { {name =, line =, where =, o = {key -> opt}}, ... }.
function job.jobs(sections)
  local global, jobs = {}, {}
  for _, s in ipairs(sections) do
    if s.name == "global" then
      for _, opt in ipairs(s.opts) do global[opt.key] = opt end
    else
      local o = {}
      for k, v in pairs(global) do o[k] = v end
      for _, opt in ipairs(s.opts) do o[opt.key] = opt end
      jobs[#jobs + 1] = { name = s.name, line = s.line, where = s.where, o = o }
    end
  end
  return jobs
end

--- What option opt ({key, value}) is to iomoon: job.OPTIONS's kind, or
-- for an option whose kind depends on its value (a function there), the
-- kind of this value; nil: not taken.
function job.kind(opt)
  local kind = job.OPTIONS[opt.key]
  if type(kind) == "function" then return kind(opt.value) end
  return kind
end

--- The options of `jobs` (and [global] sections) iomoon does not take:
-- a list of { where =, key = } in line order, and the no-effect ones.
function job.unsupported(sections)
  local bad, noop, said, seen = {}, {}, {}, {}
  for _, s in ipairs(sections) do
    for _, opt in ipairs(s.opts) do
      local kind = job.kind(opt)
      if not kind then bad[#bad + 1] = opt
      elseif kind == "noop" and not seen[opt.key] then
        seen[opt.key] = true
        noop[#noop + 1] = opt.given
      elseif kind == "said" and not seen[opt.key] then
        seen[opt.key] = true
        said[#said + 1] = opt
      end
    end
  end
  return bad, noop, said
end

-- Units: the multiplier of a size suffix as fio's parser computes it:
-- k, m, g, t, p (with or without b) are kb_base's powers; kib, mib, ...
-- the other base's (with kb_base=1024, the default, 1kib is 1000).
local POW = { k = 1, m = 2, g = 3, t = 4, p = 5 }

--- The bytes of fio size value s (a whole number with fio's suffixes; a
-- fraction is refused: fio would read "1.5k" as 1). what names it in errors.
function job.size(s, kb_base, what)
  kb_base = kb_base or 1024
  local num, suf = tostring(s):lower():match("^%s*(%d+%.?%d*)%s*(%a*)%s*$")
  local hex = tostring(s):match("^%s*0[xX](%x+)%s*$")
  local too_large = "%s: '%s' is too large (at most 8 EiB - 1, 0x7fffffffffffffff)"
  if hex then
    local v = tonumber(hex, 16) -- wraps past 64 bits
    if #hex:gsub("^0+", "") > 16 or v < 0 then input_error(too_large, what, s) end
    return v
  end
  if not num then input_error("%s: '%s' is not a size (4k, 64k, 1m, 2g; fio's units)", what, s) end
  local pow, mult = 0, kb_base
  if suf ~= "" and suf ~= "b" then
    local p = POW[suf:sub(1, 1)]
    if not p or #suf > 3 or (#suf >= 2 and not (suf:sub(2) == "b" or suf:sub(2) == "i" or suf:sub(2) == "ib")) then
      input_error("%s: '%s' is not a size (unknown unit '%s'; k, m, g, t, p, with kb_base=%d)", what, s, suf, kb_base)
    end
    pow = p
    if suf:sub(2, 3) == "ib" then mult = kb_base == 1024 and 1000 or 1024 end
  end
  if num:find("%.") then
    input_error("%s: '%s' has a fraction (fio reads whole numbers only: 1536, or 1536k for 1.5m)", what, s)
  end
  local v = math.tointeger(tonumber(num) * mult ^ pow)
  if not v then input_error(too_large, what, s) end
  return v
end

local TIME_US = { us = 1, usec = 1, ms = 1000, msec = 1000, s = 1000000, sec = 1000000, m = 60000000,
  min = 60000000, h = 3600000000, d = 86400000000 }

-- The longest time iomoon takes, in us: its durations are whole
-- nanoseconds below 2^63 (about 292 years); a round number below that.
local MAX_DAYS = 106000
job.MAX_US = MAX_DAYS * TIME_US.d

--- The microseconds of fio time value s (an integer); a bare number is
-- in `unit_us` (1000000 for runtime and ramp_time: seconds; 1 for
-- thinktime). A time past job.MAX_US is refused as too long.
function job.time_us(s, unit_us, what)
  local num, suf = tostring(s):lower():match("^%s*(%d+%.?%d*)%s*(%a*)%s*$")
  local mult = suf == "" and unit_us or TIME_US[suf or ""]
  if not num or not mult then
    input_error("%s: '%s' is not a time (a number, or with us, ms, s, m, h, d)", what, s)
  end
  if num:find("%.") then
    input_error("%s: '%s' has a fraction (fio reads whole numbers only: 500ms, not 0.5)", what, s)
  end
  -- compared as a float first: the integer product of a long one would wrap
  if tonumber(num) * 1.0 * mult > job.MAX_US then
    input_error("%s: '%s' is too long (iomoon times at most %d days, about %d years)", what, s, MAX_DAYS,
      MAX_DAYS * 10 // 3653)
  end
  return math.tointeger(tonumber(num) * mult)
end

--- Microseconds (an integer) as a duration iomoon reads, in the largest
-- unit that holds it whole: 1000000 -> "1s", 1500 -> "1500us".
function job.duration_text(us)
  for _, u in ipairs { { "h", TIME_US.h }, { "m", TIME_US.m }, { "s", TIME_US.s }, { "ms", TIME_US.ms } } do
    if us % u[2] == 0 then return string.format("%d%s", us // u[2], u[1]) end
  end
  return string.format("%dus", us)
end

--- A whole number option, with fio's int suffixes (kb_base's k).
function job.int(s, what, lo, hi, kb_base)
  local v = job.size(s, kb_base, what)
  if (lo and v < lo) or (hi and v > hi) then
    input_error("%s: %s is out of range (%s to %s)", what, tostring(s), tostring(lo or 0), tostring(hi or "any"))
  end
  return v
end

--- A boolean option: bare, 1/0, true/false, yes/no, on/off.
function job.bool(s, what)
  if s == nil then return true end
  local l = tostring(s):lower()
  if l == "1" or l == "true" or l == "yes" or l == "on" then return true end
  if l == "0" or l == "false" or l == "no" or l == "off" then return false end
  input_error("%s: '%s' is not a boolean (1 or 0)", what, s)
end

--- fio's per-direction list "read,write,trim": a missing trailing entry
-- is the last one given (bs=4k,8k: trims 8k), an empty one the default
-- (bs=,8k: reads at the default). Returns three values, parse()d.
function job.per_dir(s, default, parse)
  local parts = {}
  for p in (s .. ","):gmatch("([^,]*),") do parts[#parts + 1] = p end
  if #parts > 3 then return nil, "more than three values (read,write,trim)" end
  local out = {}
  for i = 1, 3 do
    local p = parts[i]
    if p == nil then out[i] = out[i - 1]
    elseif p:match("^%s*$") then out[i] = default
    else out[i] = parse(p) end
  end
  return out
end

return job
