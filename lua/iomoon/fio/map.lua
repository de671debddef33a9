-- iomoon.fio.map: fio's jobs (iomoon.fio.job) as iomoon phases. Jobs
-- separated by `stonewall` are phases run one after another; the jobs of
-- one group run at one barrier as the streams of one phase. Every field
-- set is noted with the fio option it came from (map.from), for the
-- comments of `iomoon convert`.
local iomoon = require "iomoon"
local job = require "iomoon.fio.job"
local fio_files = require "iomoon.fio.files" -- jobs of many files (and the options they take)
local options = require "iomoon.fio.options"
local errors = require "iomoon.errors"
local util = require "iomoon.util"
local input_error = errors.input
local is_url = util.is_url

local map = {}

options.register()

-- the iomoon engine of each fio ioengine, and whether it is a sync engine
local ENGINES = {
  io_uring = "io_uring", libaio = "libaio", psync = "psync", sync = "psync", pvsync = "psync",
  pvsync2 = "psync", vsync = "psync", null = "null", nbd = "nbd", libiscsi = "iscsi", nfs = "nfs",
  cpp_null = "null", -- fio's null engine written in C++ (engines/cpp_null.cpp): the same no-I/O engine
}
local SYNC_ENGINE = { psync = true }

-- fio's rw: the shares of reads, writes and trims (before rwmixread) and
-- whether offsets are random
local RW = {
  read = { r = 100 }, write = { w = 100 }, randread = { r = 100, rand = true }, randwrite = { w = 100, rand = true },
  rw = { mixed = true }, readwrite = { mixed = true }, randrw = { mixed = true, rand = true },
  trim = { t = 100 }, randtrim = { t = 100, rand = true }, trimwrite = { t = 50, w = 50 },
}

map.ENGINES, map.RW = ENGINES, RW -- read by `iomoon quick`'s fio spellings (cli.lua)

-- the comment of a field no option set: fio's default
local DEFAULT_NOTE = { engine = "fio's default ioengine=psync", direct = "fio's default: buffered (direct=0)",
  batch = "fio's default iodepth_batch_submit=1",
  random_map = "fio's default random map (no norandommap): each block once per pass, I/Os cut at the map's holes" }

-- A mapping context: the job's options, and where each field came from.
local function ctx_of(j, from)
  local c = { j = j, from = from }
  -- the value of option k, or nil; c.note(k) is the "k=v" comment text
  function c.v(k)
    local o = j.o[k]
    if o == nil then return nil end
    return o.value == nil and true or o.value
  end
  function c.what(k)
    local o = j.o[k]
    return string.format("%s: %s", o and o.where or j.where, o and o.given or k)
  end
  function c.set(t, field, value, ...)
    t[field] = value
    local keys = {}
    for _, k in ipairs { ... } do
      if j.o[k] then keys[#keys + 1] = j.o[k].value == nil and k or (k .. "=" .. tostring(j.o[k].value)) end
    end
    local note = #keys > 0 and table.concat(keys, ", ") or DEFAULT_NOTE[field]
    if note then from[t] = from[t] or {}; from[t][field] = note end
  end
  return c
end

-- One direction's block sizes: a size, or a list of {size, weight} from
-- bssplit ("4k/50:64k/50"; an entry without a weight shares what is left).
local function bssplit_one(s, kb, what)
  local list, given, open = {}, 0, 0
  for part in s:gmatch("[^:]+") do
    local sz, pct = part:match("^%s*([^/]+)/?(%S*)%s*$")
    local e = { job.size(sz, kb, what) }
    if pct ~= "" then
      e[2] = tonumber(pct) or input_error("%s: '%s' is not a percentage", what, pct)
      given = given + e[2]
    else
      open = open + 1
    end
    list[#list + 1] = e
  end
  for _, e in ipairs(list) do
    if not e[2] then
      e[2] = (100 - given) / open
      e[2] = math.tointeger(e[2]) or e[2]
    end
  end
  local sum = 0
  for _, e in ipairs(list) do sum = sum + e[2] end
  if math.abs(sum - 100) > 1e-6 then input_error("%s: the shares sum to %g, not 100", what, sum) end
  if #list == 1 then return list[1][1] end
  return list
end

-- bsrange "1k-16k": fio picks a size in the range, a multiple of the
-- smallest: here every multiple, weighed equally.
local function bsrange_one(s, kb, what)
  local lo, hi = s:match("^%s*([^:-]+)[:-]([^:-]+)%s*$")
  if not lo then input_error("%s: '%s' is not a range (MIN-MAX, as 1k-16k)", what, s) end
  lo, hi = job.size(lo, kb, what), job.size(hi, kb, what)
  if lo == 0 or hi < lo then input_error("%s: '%s' is not a range (0 < MIN <= MAX)", what, s) end
  if hi // lo > 64 then
    input_error("%s: '%s' has %d multiples of %d (iomoon takes at most 64 sizes)", what, s, hi // lo, lo)
  end
  if hi // lo == 1 then return lo end
  local list = {}
  for m = 1, hi // lo do list[#list + 1] = lo * m end
  return list
end

-- The block sizes of reads, writes and trims (a list of three).
local function block_sizes(c, kb)
  local function dirs(k, one, default)
    local l, why = job.per_dir(c.v(k), default, function(p) return one(p, kb, c.what(k)) end)
    if not l then input_error("%s=%s: %s", c.what(k), c.v(k), why) end
    return l
  end
  if c.v("bssplit") then return dirs("bssplit", bssplit_one, 4096), "bssplit" end
  if c.v("bsrange") then return dirs("bsrange", bsrange_one, 4096), "bsrange" end
  if c.v("bs") then return dirs("bs", function(p) return job.size(p, kb, c.what("bs")) end, 4096), "bs" end
  return { 4096, 4096, 4096 }, nil
end

local function same(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  if #a ~= #b then return false end
  for i = 1, #a do if not same(a[i], b[i]) then return false end end
  return true
end

-- The mix of a job: one spec when every direction it does has the same
-- block sizes, random share and alignment; else a spec per direction,
-- weighed by its share.
local function mix_of(c, spec, kb)
  local rw, every, skip = options.rw_modifier((c.v("rw") or "read"):lower(), c.what("rw"), kb)
  local m = RW[rw] or input_error("%s: '%s' is not one of fio's rw values (read, write, randread, randwrite, "
    .. "rw, readwrite, randrw, trim, randtrim, trimwrite)", c.what("rw"), rw)
  local share = { m.r or 0, m.w or 0, m.t or 0 }
  if m.mixed then
    local r = 50
    if c.v("rwmixread") then r = job.int(c.v("rwmixread"), c.what("rwmixread"), 0, 100)
    elseif c.v("rwmixwrite") then r = 100 - job.int(c.v("rwmixwrite"), c.what("rwmixwrite"), 0, 100) end
    share = { r, 100 - r, 0 }
  end
  local bs, bskey = block_sizes(c, kb)
  local rnd = { 0, 0, 0 }
  if m.rand then
    rnd = c.v("percentage_random") and job.per_dir(c.v("percentage_random"), 100, function(p)
      return job.int(p, c.what("percentage_random"), 0, 100) end) or { 100, 100, 100 }
    if every then rnd = { every, every, every } end -- rw=randread:N: one random offset in N
  end
  local align = c.v("blockalign") and job.per_dir(c.v("blockalign"), nil,
    function(p) return job.size(p, kb, c.what("blockalign")) end) or {}
  local active = {}
  for d = 1, 3 do if share[d] > 0 then active[#active + 1] = d end end
  local one = true
  for _, d in ipairs(active) do
    local a = active[1]
    if not (same(bs[d], bs[a]) and rnd[d] == rnd[a] and align[d] == align[a]) then one = false end
  end
  local keys = { "rw", "rwmixread", "rwmixwrite", bskey, "percentage_random", "blockalign" }
  local mix = {}
  if one then
    local d = active[1]
    mix[1] = { bs = bs[d], read = share[1], trim = share[3] > 0 and share[3] or nil, random = rnd[d], align = align[d],
      skip = skip }
  else
    for _, d in ipairs(active) do
      mix[#mix + 1] = { bs = bs[d], read = d == 1 and 100 or 0, trim = d == 3 and 100 or nil, random = rnd[d],
        align = align[d], skip = skip, weight = share[d] }
    end
  end
  c.set(spec, "mix", mix, table.unpack(keys))
  return share
end

-- fio's filename list: ':' separates files, '\:' is a colon in a name
local function split_files(s)
  -- a URL (iscsi://..., with fio's '\:' escapes or without) is one target: its colons are its own
  local url = s:gsub("\\:", ":")
  if is_url(url) then return { url } end
  local files, cur = {}, {}
  local i = 1
  while i <= #s do
    local ch = s:sub(i, i)
    if ch == "\\" and s:sub(i + 1, i + 1) == ":" then cur[#cur + 1] = ":"; i = i + 1
    elseif ch == ":" then files[#files + 1] = table.concat(cur); cur = {}
    else cur[#cur + 1] = ch end
    i = i + 1
  end
  files[#files + 1] = table.concat(cur)
  return files
end

-- The paths a job does I/O to: --target, else fio's uri (nbd), filename
-- (in directory), else fio's own names, one file per clone (NAME.N.0).
local function paths_of(c, ctx, numjobs)
  if ctx.target then return { ctx.target }, false end
  if c.v("uri") then return { c.v("uri") }, false end
  local dir = c.v("directory")
  if dir and dir:find(":") then input_error("%s=%s: several directories are not supported", c.what("directory"), dir) end
  local function in_dir(p)
    if dir and not p:match("^/") and not is_url(p) then return dir:gsub("/+$", "") .. "/" .. p end
    return p
  end
  local fname = c.v("filename")
  if fname then
    local out = {}
    for _, f in ipairs(split_files(fname)) do
      if f == "" then input_error("%s=%s: an empty file name", c.what("filename"), fname) end
      out[#out + 1] = in_dir(f)
    end
    return out, false
  end
  -- fio's own names: NAME.N.0, or filename_format's ($jobname, $jobnum,
  -- $filenum: 0, one file a job; $clientuid: 0, no client/server here)
  local fmt = c.v("filename_format")
  local function own(i)
    if not fmt then return in_dir(string.format("%s.%d.0", c.j.name, i)) end
    local vars = { jobname = c.j.name, jobnum = tostring(i), filenum = "0", clientuid = "0" }
    return in_dir((tostring(fmt):gsub("%$(%a+)", function(k) return vars[k] end)))
  end
  local out = {}
  if ctx.clone then return { own(ctx.clone) }, true end
  for i = 0, numjobs - 1 do out[#out + 1] = own(i) end
  return out, true
end

-- ioengine=nfs: fio mounts nfs_url (nfs://HOST/EXPORT[/DIR][?ARGS]) and
-- opens each file beneath it; here each is the URL of that file.
local function nfs_paths(c, paths)
  local url = c.v("nfs_url")
  if not url or not tostring(url):lower():match("^nfs://") then
    input_error("%s: ioengine=nfs needs nfs_url=nfs://HOST/EXPORT[/DIR][?version=4&nfsport=N], got %s",
      c.j.where, url and ("'" .. tostring(url) .. "'") or "none")
  end
  local base, args = tostring(url):match("^([^?]*)(.*)$")
  local out = {}
  for i, p in ipairs(paths) do out[i] = is_url(p) and p or base:gsub("/+$", "") .. "/" .. p:gsub("^/+", "") .. args end
  return out
end

-- The targets, region and quota of a job. share: the rw shares.
local function where_of(c, spec, ctx, kb, numjobs, engine)
  local paths, own = {}, false
  if engine ~= "null" then paths, own = paths_of(c, ctx, numjobs) end
  if engine == "nfs" and not ctx.target then paths = nfs_paths(c, paths) end
  local function sized_here(p) return not is_url(p) or engine == "nfs" end -- a file iomoon may create
  -- size= and offset= may be shares of the file or device (size=50%)
  local first = paths[1] and not is_url(paths[1]) and iomoon.stat(paths[1]) or nil
  local whole = first and (first.kind == "file" or first.kind == "block") and first.size or nil
  local function sized(k)
    local v = c.v(k)
    if v == nil or v == true then return nil end
    return options.percent_of(v, whole, c.what(k)) or job.size(v, kb, c.what(k))
  end
  -- without size=, fio's job does its file's filesize (one file a job here:
  -- nrfiles > 1 is a files phase, iomoon.fio.files)
  local size = sized("size") or sized("filesize")
  local off = sized("offset") or 0
  off = off + (ctx.clone or 0) * options.offset_increment(c, kb, whole)
  if engine == "null" then
    c.set(spec, "region", size or (1 << 30), "size")
    return size
  end
  local per = size and (own and size or size // #paths)
  local targets, total = {}, 0
  for _, p in ipairs(paths) do
    local st = not is_url(p) and iomoon.stat(p) or nil
    local t = { path = p, allow_write = ctx.allow_write or nil, force = ctx.force or nil }
    if per and sized_here(p) and (not st or st.kind == "file") then t.size = off + per end
    -- a device that is not on this machine is the one the plan will run on: used whole, as fio does
    if not per and not st and not is_url(p) and not p:match("^/dev/") then
      input_error("%s: size: missing (%s does not exist: give size= to create it, as fio needs)", c.j.where, p)
    end
    total = total + (per or (st and st.size - off) or 0)
    targets[#targets + 1] = t
  end
  c.set(spec, "target", #targets == 1 and targets[1] or targets, "filename", "directory", "uri", "nfs_url", "size",
    "filesize")
  if per or off > 0 then
    c.set(spec, "region", off > 0 and { offset = off, size = per } or per, "offset", "size", "filesize",
      "offset_increment")
  end
  return own and total // numjobs or total, #paths
end

-- The mean block size of each direction (reads, writes, trims) of a mix.
local function mean_bs(mix)
  local out = {}
  for d = 1, 3 do
    local sum, n = 0, 0
    for _, m in ipairs(mix) do
      local mine = #mix == 1 or (d == 1 and m.read == 100) or (d == 3 and m.trim == 100)
        or (d == 2 and m.read == 0 and not m.trim)
      if mine then
        local list = type(m.bs) == "table" and m.bs or { m.bs }
        local wsum = 0
        for _, e in ipairs(list) do
          local sz, wt = type(e) == "table" and e[1] or e, type(e) == "table" and e[2] or 1
          sum, wsum = sum + sz * wt, wsum + wt
        end
        sum, n = sum / wsum, 1
      end
    end
    out[d] = n > 0 and sum or 4096
  end
  return out
end

-- The pacing of a job: rate_iops or rate (per clone, so times numjobs;
-- per direction as fio paces them: reads at one rate, writes at another,
-- so the mix's shares become the rates' when they differ), thinktime.
local function pacing_of(c, spec, numjobs, share, kb)
  local per = options.rates(c, kb, mean_bs(spec.mix))
  if per then
    local total, limited, free = 0, 0, 0
    for d = 1, 3 do
      if share[d] > 0 then
        if per[d] > 0 then total, limited = total + per[d], limited + 1 else free = free + 1 end
      end
    end
    local key = c.v("rate") and "rate" or "rate_iops"
    if limited > 0 and free > 0 then
      input_error("%s=%s: a rate for some of the job's directions only is not supported (give each a rate)",
        c.what(key), c.v(key))
    end
    if limited > 1 then -- each direction at its own rate: the mix's shares are the rates'
      local function pct(d) return util.share(per[d] * 100 / total) end
      if #spec.mix == 1 then
        spec.mix[1].read = pct(1)
        spec.mix[1].trim = share[3] > 0 and pct(3) or nil
      else
        for _, m in ipairs(spec.mix) do
          m.weight = pct(m.read == 100 and 1 or m.trim == 100 and 3 or 2)
        end
      end
      map.notes[#map.notes + 1] = string.format("%s=%s: fio paces each direction at its rate; the mix's shares are "
        .. "the rates' (%d IOPS in all)", c.what(key), c.v(key), math.floor(total * numjobs + 0.5))
    end
    local proc = (c.v("rate_process") or "linear"):lower()
    if proc ~= "linear" and proc ~= "poisson" then
      input_error("%s: '%s' is not linear or poisson", c.what("rate_process"), proc)
    end
    if total > 0 then
      local iops = total * numjobs
      c.set(spec, "rate", { iops = math.tointeger(iops) or iops, arrival = proc == "poisson" and "poisson" or "fixed" },
        key, "rate_process", "numjobs")
    end
  end
  if c.v("thinktime") then
    local us = job.time_us(c.v("thinktime"), 1, c.what("thinktime"))
    local blocks = c.v("thinktime_blocks") and job.int(c.v("thinktime_blocks"), c.what("thinktime_blocks"), 1) or 1
    if us > 0 then
      local d = job.duration_text(us)
      c.set(spec, "think", blocks > 1 and { burst = blocks, delay = d } or d, "thinktime", "thinktime_blocks")
    end
  end
end

-- random_distribution: fio's names are iomoon's dist strings, but for
-- `random` (uniform) and the per-direction and centred forms (refused).
local function dist_of(c, spec)
  local d = c.v("random_distribution")
  if not d or d == "random" then return end
  if d:match("^zoned:") and d:match("/$") then -- the last zone without a size: the rest of the region
    local used = 0
    for r in d:gmatch("/(%d+%.?%d*)") do used = used + tonumber(r) end
    d = d .. string.format("%g", 100 - used)
  end
  if d:match("^sequence:") then -- block indices in turn; random_sequence_stride=1: each pass further on
    local stride = c.v("random_sequence_stride") and job.int(c.v("random_sequence_stride"),
      c.what("random_sequence_stride"), 0, 1) == 1
    c.set(spec, "dist", stride and d:gsub("^sequence:", "sequence_stride:") or d, "random_distribution",
      "random_sequence_stride")
    return
  end
  if d:find(",") then input_error("%s=%s: per-direction distributions are not supported", c.what("random_distribution"), d) end
  local name, rest = d:match("^(%a+):(.*)$")
  if name == "zipf" or name == "pareto" or name == "normal" then
    if rest:find(":") then input_error("%s=%s: a centre value is not supported", c.what("random_distribution"), d) end
  elseif name ~= "zoned" then
    input_error("%s: '%s' is not supported (random, zipf:T, pareto:H, normal:DEV, zoned:A/R:...)",
      c.what("random_distribution"), d)
  end
  c.set(spec, "dist", d, "random_distribution")
end

-- fio's random map, its default for random I/O without norandommap: each
-- block once per pass over the file, an I/O cut short where the blocks
-- after its offset were done already (so bssplit's large sizes come out
-- smaller). fio keeps none for a skewed random_distribution.
local function random_map_of(c, spec)
  local off = c.v("norandommap") and job.bool(c.v("norandommap"), c.what("norandommap"))
  if off or spec.dist or spec.replay then return end
  local random = false
  for _, s in ipairs(spec.mix or {}) do
    if s.region then return end
    random = random or (s.random or 0) > 0
  end
  if random then c.set(spec, "random_map", true) end
end

-- The engine, depth, batch and direct of a job.
local function engine_of(c, spec, ph)
  local e = (c.v("ioengine") or "psync"):lower()
  local engine = ENGINES[e] or input_error("%s: '%s' is not supported (io_uring, libaio, psync, sync, pvsync, "
    .. "null, cpp_null, nbd, libiscsi, nfs)", c.what("ioengine"), e)
  c.set(ph, "engine", engine, "ioengine")
  local qd = c.v("iodepth") and job.int(c.v("iodepth"), c.what("iodepth"), 1, 4096) or 1
  if SYNC_ENGINE[engine] and qd > 1 then
    map.notes[#map.notes + 1] = string.format("%s=%d: fio's sync engine %s runs one I/O at a time; so does iomoon's psync",
      c.what("iodepth"), qd, e)
    qd = 1
  end
  c.set(spec, "qd", qd, "iodepth")
  if (engine == "io_uring" or engine == "libaio") and qd > 1 then
    -- fio submits every I/O on its own (iodepth_batch_submit=1) unless told; 0 is iodepth
    local b = c.v("iodepth_batch_submit") and job.int(c.v("iodepth_batch_submit"), c.what("iodepth_batch_submit"), 0) or 1
    c.set(spec, "batch", math.min(b == 0 and qd or b, qd), "iodepth_batch_submit")
  end
  local direct = false -- fio's default: buffered
  if c.v("direct") ~= nil then direct = job.bool(c.v("direct"), c.what("direct")) end
  if c.v("buffered") ~= nil then direct = not job.bool(c.v("buffered"), c.what("buffered")) end
  if engine == "null" then direct = false end -- no I/O: nothing to align
  c.set(spec, "direct", direct, "direct", "buffered")
  return engine
end

-- fsync, fdatasync, verify: only where the mix writes.
local function durability_of(c, spec, share)
  local writes = share[2] > 0
  for _, k in ipairs { "fsync", "fdatasync" } do
    if c.v(k) then
      local n = job.int(c.v(k), c.what(k), 0, 1000000000)
      if n > 0 and writes then c.set(spec, k, n, k) end
    end
  end
  local v = c.v("verify")
  if v and v ~= "0" and v ~= "none" then
    if v ~= "crc32c" and v ~= "crc32c-intel" then
      input_error("%s: '%s' is not supported (crc32c, crc32c-intel)", c.what("verify"), v)
    end
    c.set(spec, "verify", "crc32c", "verify")
    local again = c.v("do_verify") == nil or job.bool(c.v("do_verify"), c.what("do_verify"))
    return writes and again
  end
end

-- fio's buffer contents (doc/import.md, "What each option becomes"):
-- buffer_compress_percentage=P is compress = 100 / (100 - P) (fio fills
-- P % of each chunk with a compressible run), dedupe_percentage=P is
-- dedupe = 100 / (100 - P), dedupe_mode=working_set with
-- dedupe_working_set_percentage=W draws the duplicates from W % of the
-- job's size (dedupe_sets), zero_buffers is pattern = "zero". The rest
-- holds as iomoon's data is: refill_buffers and scramble_buffers (each
-- write new; iomoon's stamps already make every 4 KiB unique),
-- buffer_compress_chunk (the ratio holds on every 4 KiB unit),
-- dedupe_global (iomoon's sets are each worker's).
local function ratio_of(c, k, max)
  local pct = tonumber(c.v(k)) or input_error("%s: '%s' is not a percentage", c.what(k), tostring(c.v(k)))
  if pct < 0 or pct > 100 then input_error("%s: %s is outside 0..100 (a percentage)", c.what(k), c.v(k)) end
  if pct >= 100 or 100 / (100 - pct) > max then
    map.notes[#map.notes + 1] = string.format("%s: fio's %s %% is iomoon's most, %g:1", c.what(k), c.v(k), max)
    return max
  end
  return 100 / (100 - pct)
end

local function data_of(c, spec, kb)
  if c.v("zero_buffers") and job.bool(c.v("zero_buffers"), c.what("zero_buffers")) then
    c.set(spec, "pattern", "zero", "zero_buffers")
  end
  if c.v("buffer_pattern") then
    input_error("%s: not supported (fio writes those bytes in every write; iomoon's patterns are random, zero, "
      .. "offset, repeat and reuse, and compress = for compressible data)", c.what("buffer_pattern"))
  end
  if c.v("buffer_compress_percentage") then
    local r = ratio_of(c, "buffer_compress_percentage", 16)
    if r > 1 then c.set(spec, "compress", r, "buffer_compress_percentage") end
  end
  if c.v("dedupe_percentage") then
    local r = ratio_of(c, "dedupe_percentage", 1000)
    if r > 1 then c.set(spec, "dedupe", r, "dedupe_percentage") end
  end
  if spec.compress or spec.dedupe then -- units that divide every block size, as fio's buffers are its blocks
    local u = 4096
    local function see(b)
      if type(b) == "table" then
        for _, e in ipairs(b) do see(type(e) == "table" and e[1] or e) end
      elseif type(b) == "number" then
        while u > 512 and b % u ~= 0 do u = u // 2 end
      end
    end
    see(spec.bs)
    for _, m in ipairs(spec.mix or {}) do see(m.bs) end
    if u < 4096 then c.set(spec, "dedupe_unit", u, "bs") end
  end
  local mode = c.v("dedupe_mode")
  if mode and mode ~= "repeat" and mode ~= "working_set" then
    input_error("%s: '%s' is not a dedupe mode (repeat, working_set)", c.what("dedupe_mode"), mode)
  end
  if mode == "working_set" and spec.dedupe then
    local w = tonumber(c.v("dedupe_working_set_percentage") or 5)
    local size = c.v("size") and job.size(c.v("size"), kb, c.what("size"))
    if not w or w <= 0 or w > 100 then
      input_error("%s: %s is outside 0..100 (a percentage)", c.what("dedupe_working_set_percentage"),
        tostring(c.v("dedupe_working_set_percentage")))
    end
    if size then
      -- a set is one duplicate unit of a worker's data region (16 MiB of
      -- units, 1 in dedupe unique: doc/lua-api.md); more are refused
      local sets, places = math.max(1, math.floor(size * w / 100 / 4096)), (16 << 20) // (spec.dedupe_unit or 4096)
      local most = places - (math.floor((places - 1) / spec.dedupe) + 1)
      if sets > most then
        map.notes[#map.notes + 1] = string.format("%s: fio's working set of %d units is more than iomoon's data "
          .. "region holds; its %d duplicate units are the sets", c.what("dedupe_working_set_percentage"), sets, most)
        sets = most
      end
      c.set(spec, "dedupe_sets", sets, "dedupe_mode", "dedupe_working_set_percentage", "size")
    end
  end
end

-- A sequential job with a hole after each I/O (rw=read:8k) and no
-- io_size: fio goes over its region once (io_u.c's get_next_seq_offset),
-- ending when an I/O ends at the region's end or the next offset lies
-- past it, not after size= bytes. The I/Os of that pass when fewer than
-- the bytes' (nil: the bytes end it, or fio's wrap goes where iomoon's
-- does not: to twice the offset).
local function skip_pass(spec, whole)
  local m = spec.mix and #spec.mix == 1 and spec.mix[1]
  local bs = m and (type(m.bs) == "table" and #m.bs == 1 and m.bs[1] or m.bs)
  if not (m and (m.skip or 0) > 0 and (m.random or 0) == 0 and math.type(bs) == "integer" and bs > 0) then return nil end
  local r = spec.region
  local off = type(r) == "table" and r.offset or 0
  local size = type(r) == "table" and (r.size or whole) or r
  if math.type(off) ~= "integer" or math.type(size) ~= "integer" then return nil end
  local real, last, n = off + size, off, 0
  while n * bs < size do
    if last >= real then return n end
    local pos = last - off
    if pos ~= 0 then
      pos = pos + m.skip
      if pos >= real then
        if off ~= 0 then return nil end
        pos = 0
      end
    end
    if pos >= size or pos + off + bs > real then return n end -- fio: an I/O past the file's end ends it
    n, last = n + 1, pos + off + bs
  end
  return nil
end

-- A sequential job stepping back (rw=read:-8k) from offset=: fio's first
-- I/O is not at the offset (io_u.c's get_next_seq_offset moves its start
-- to io_size, taken as a position in the file, then back by the step,
-- relative to the offset): N - off - step into the region, or, when that
-- is before its start, N - step (as a later wrap). The seq_start that
-- starts iomoon's stream there (nil: at the region's start, as fio's with
-- no offset, or at offset = N). size: the region's bytes (fio's io_size).
local function back_start(spec, size)
  local r = spec.region
  local off = type(r) == "table" and r.offset or 0
  local step
  for _, m in ipairs(spec.mix or {}) do
    if not (m.skip and m.skip < 0 and (m.random or 0) == 0 and (step == nil or step == -m.skip)) then return nil end
    step = -m.skip
  end
  if not step or off == 0 or math.type(size) ~= "integer" or size == off then return nil end
  local start = size > off and size - off >= step and size - off - step or size - step
  return start > 0 and start or nil
end

-- One job as a workload: spec (the fields a stream may give), ph (those
-- that belong to a phase: engine, duration, ramp, seed), and whether a
-- verification pass follows it.
local function workload(j, ctx, from)
  local c = ctx_of(j, from)
  local spec, ph = {}, {}
  local kb = c.v("kb_base") and job.int(c.v("kb_base"), c.what("kb_base"), 1000, 1024) or 1024
  if kb ~= 1000 and kb ~= 1024 then input_error("%s: %d is not 1000 or 1024", c.what("kb_base"), kb) end
  c.set(spec, "name", (j.o.name and c.v("name") or j.name) .. (ctx.clone and ("." .. ctx.clone) or ""), "name")
  if c.v("description") then c.set(spec, "meta", { description = c.v("description") }, "description") end
  local numjobs = c.v("numjobs") and job.int(c.v("numjobs"), c.what("numjobs"), 1, 256) or 1
  if ctx.clone then numjobs = 1 end -- offset_increment: each clone a stream of its own
  local engine = engine_of(c, spec, ph)
  local share = mix_of(c, spec, kb)
  local per_clone, nfiles = where_of(c, spec, ctx, kb, numjobs, engine)
  local workers = numjobs
  if nfiles and nfiles > numjobs and not c.v("uri") then
    map.notes[#map.notes + 1] = string.format("%s: fio's one job cycles its %d files; iomoon gives each file a worker",
      j.where, nfiles)
    workers = nfiles
  end
  c.set(spec, "workers", workers, "numjobs")
  if workers == 1 then
    local r = spec.region
    local start = back_start(spec, type(r) == "table" and r.size or nfiles == 1 and per_clone or nil)
    if start then c.set(spec, "seq_start", start, "rw", "offset", "size") end
  end
  local tb = c.v("time_based") and job.bool(c.v("time_based"), c.what("time_based"))
  if c.v("runtime") then
    c.set(ph, "duration", job.time_us(c.v("runtime"), 1e6, c.what("runtime")) / 1e6, "runtime", "time_based")
  elseif tb then
    input_error("%s: runtime: missing (time_based needs a runtime, or fio runs until stopped)", c.what("time_based"))
  end
  if c.v("ramp_time") then c.set(ph, "ramp", job.time_us(c.v("ramp_time"), 1e6, c.what("ramp_time")) / 1e6, "ramp_time") end
  if c.v("fill_device") and job.bool(c.v("fill_device"), c.what("fill_device")) then
    for _, t in ipairs(spec.target and (spec.target.path and { spec.target } or spec.target) or {}) do
      local st = not is_url(t.path) and iomoon.stat(t.path)
      if not (st and st.kind == "block") then
        input_error("%s: on %s fio writes until the filesystem is full (ENOSPC); iomoon writes a size it is given: "
          .. "give size= (the free space df shows), or a block device, which is written whole", c.what("fill_device"),
          util.shown(t.path))
      end
    end
  end
  local tp = spec.target and spec.target.path
  local whole_url = tp and (is_url(tp) or (tp:match("^/dev/") and not iomoon.stat(tp))) and not c.v("size")
  if not tb and whole_url and not c.v("io_size") then
    -- a LUN or an export has its own size: the runner reads it once, as fio does
    options.whole_target(c, spec)
  elseif not tb then
    local io = c.v("io_size") and job.size(c.v("io_size"), kb, c.what("io_size")) or per_clone
    if not io or io == 0 then
      input_error("%s: size: missing (fio runs until size= is done; give size=, io_size=, or time_based with runtime)",
        j.where)
    end
    c.set(spec, "bytes", io * numjobs * options.loops(c), "io_size", "size", "numjobs", "loops")
    local pass = not c.v("io_size") and skip_pass(spec, (workers == 1 and nfiles == 1) and per_clone or nil)
    if pass then pass = pass * options.loops(c) end
    local nios = c.v("number_ios") and job.int(c.v("number_ios"), c.what("number_ios"), 1)
    if nios and not (pass and pass < nios) then
      c.set(spec, "ios", nios * numjobs, "number_ios", "numjobs")
    elseif pass then -- fio's pass ends first (number_ios is at most)
      c.set(spec, "ios", pass * numjobs, "rw", "size", "numjobs", "loops")
    end
  end
  pacing_of(c, spec, numjobs, share, kb)
  dist_of(c, spec)
  random_map_of(c, spec)
  if c.v("randseed") then
    c.set(ph, "seed", job.int(c.v("randseed"), c.what("randseed"), 0), "randseed")
  elseif c.v("randrepeat") ~= nil and not job.bool(c.v("randrepeat"), c.what("randrepeat")) then
    c.set(ph, "seed", os.time(), "randrepeat") -- fio: another sequence every run
  end
  if share[2] > 0 then data_of(c, spec, kb) end
  local fio_meta = options.apply(c, spec, ph, share, engine, numjobs, kb)
  if spec.whole_target then
    fio_meta = fio_meta or {}
    fio_meta.whole_target = spec.whole_target
    spec.whole_target = nil
  end
  local verify_after = durability_of(c, spec, share)
  local only_verify = options.verify_only(c)
  if only_verify then
    if not c.v("verify") or c.v("verify") == "0" or c.v("verify") == "none" then
      input_error("%s: needs verify= (the check of what an earlier run wrote with it)", c.what("verify_only"))
    end
    verify_after = true
  end
  local stone = (c.v("stonewall") and job.bool(c.v("stonewall"), c.what("stonewall"))) or false
  return { spec = spec, ph = ph, verify_after = verify_after, only_verify = only_verify, stonewall = stone, job = j,
    fio = fio_meta, wait_for = c.v("wait_for"), exitall = c.v("exitall") and job.bool(c.v("exitall"), c.what("exitall")),
    exit_all = options.exit_what(c) == "all", flow = options.flow(c),
    verify_on_error = options.verify_on_error(c), c = c }
end

-- A name iomoon makes up cut to leave `room` bytes of the 127 a phase's
-- name holds (" (verify)" is added to some), at a UTF-8 character's start.
local function fit_name(name, room)
  local max = 127 - room
  if #name <= max then return name end
  local cut = max - 3
  while cut > 0 and (name:byte(cut + 1) or 0) & 0xC0 == 0x80 do cut = cut - 1 end
  return name:sub(1, cut) .. "..."
end

-- Streams that name one file share its target table (the largest size
-- any of them asks), as the core wants one file given once.
local function share_targets(ws)
  local by_path = {}
  local function one(t)
    if type(t) ~= "table" or not t.path then return t end
    local have = by_path[t.path]
    if not have then by_path[t.path] = t; return t end
    if t.size and (not have.size or t.size > have.size) then have.size = t.size end
    return have
  end
  for _, w in ipairs(ws) do
    local t = w.spec.target
    if type(t) == "table" and not t.path then
      for i, x in ipairs(t) do t[i] = one(x) end
    elseif t then
      w.spec.target = one(t)
    end
  end
end

-- A phase from workloads ws (one group): a lone job is a phase; several
-- are the streams of one. Phase fields they disagree on: the engine is an
-- error; the longest runtime and ramp hold; the first job's seed.
local function phase_of(ws, from, index)
  local ph = {}
  from[ph] = {}
  for _, w in ipairs(ws) do
    for k, v in pairs(w.ph) do
      local mine = from[w.ph] and from[w.ph][k]
      local async = { libaio = true, io_uring = true }
      if k == "engine" and ph.engine and ph.engine ~= v and (SYNC_ENGINE[v] and async[ph.engine]
          or SYNC_ENGINE[ph.engine] and async[v]) then
        -- a sync job beside an async one: the async engine at the sync job's depth 1, one I/O at a time as fio's
        map.notes[#map.notes + 1] = string.format("%s: fio's sync engine beside %s in one group: its job runs on %s "
          .. "at depth 1, one I/O at a time as fio's", w.job.where, async[v] and v or ph.engine, async[v] and v or ph.engine)
        if async[v] then ph.engine = v; from[ph].engine = mine end
      elseif k == "engine" and ph.engine and ph.engine ~= v then
        input_error("%s: ioengine: the jobs of one group run as one phase of one engine (%s here, %s before): "
          .. "separate them with stonewall", w.job.where, v, ph.engine)
      elseif ph[k] == nil or ((k == "duration" or k == "ramp") and v > ph[k]) then
        ph[k] = v
        from[ph][k] = mine
      end
    end
  end
  if #ws == 1 then
    for k, v in pairs(ws[1].spec) do ph[k] = v; from[ph][k] = from[ws[1].spec] and from[ws[1].spec][k] end
    return ph
  end
  share_targets(ws)
  for _, w in ipairs(ws) do if w.flow then return map.flow_phase(ws, ph, from, index) end end
  local names = {}
  ph.streams = {}
  for i, w in ipairs(ws) do ph.streams[i] = w.spec; names[i] = w.spec.name end
  ph.name = fit_name(string.format("group %d: %s", index, table.concat(names, " + ")), #" (verify)")
  return ph
end

-- fio's flow: the jobs of a group keep their I/O counts in the ratio of
-- their |flow| (fio's flow counter; flow=1 beside flow=8 is 1:8). iomoon
-- runs them as one stream whose mix holds a spec per job, weighed so, each
-- named as its job and on a region of its own (its own sequential stream,
-- as each job has): butterfly.fio's forward and backward reads interleave.
-- The jobs must be alike but for their rw, bs, region and quotas; their
-- depths add up. A spec's stream starts at its region's start: a job's
-- seq_start (rw=read:-8k from an offset) is not kept, nor a random map (each
-- spec has a region of its own, which fio's map of the file is not).
local FLOW_OWN = { name = true, mix = true, region = true, bytes = true, ios = true, qd = true, batch = true,
  seq_start = true, random_map = true }
-- a and b equal, every field (same compares lists only)
local function deep(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do if not deep(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- A target's paths, in order ("same" compares lists, not a target's fields).
local function target_paths(t)
  if type(t) ~= "table" then return tostring(t) end
  if t.path then return t.path end
  local p = {}
  for i, e in ipairs(t) do p[i] = type(e) == "table" and e.path or tostring(e) end
  return table.concat(p, "\0")
end
function map.flow_phase(ws, ph, from, index)
  local base, total, names, mix = ws[1].spec, 0, {}, {}
  for _, w in ipairs(ws) do
    if not w.flow then input_error("%s: flow: every job of the group needs one (fio's flow counter is the group's)",
      w.job.where) end
    total = total + math.abs(w.flow)
  end
  local s = {}
  for k, v in pairs(base) do if not FLOW_OWN[k] then s[k] = v end end
  s.qd, s.bytes, s.ios = 0, 0, 0
  for _, w in ipairs(ws) do
    local sp = w.spec
    for k in pairs(sp) do
      local alike = k == "target" and target_paths(sp[k]) == target_paths(base[k]) or k ~= "target" and deep(sp[k], base[k])
      if not FLOW_OWN[k] and not alike then
        input_error("%s: flow: job '%s' differs from '%s' in %s (iomoon runs a group's flow jobs as one stream: "
          .. "they may differ in rw, bs, size, offset and iodepth only, not in their file)", w.job.where, sp.name, base.name, k)
      end
    end
    if #sp.mix ~= 1 or (sp.workers or 1) > 1 or not sp.region then
      input_error("%s: flow: job '%s' needs one rw, one bs, numjobs=1 and a size (a flow job is a spec of one "
        .. "stream)", w.job.where, sp.name)
    end
    local m = {}
    for k, v in pairs(sp.mix[1]) do m[k] = v end
    m.name, m.region, m.weight = sp.name, sp.region, math.abs(w.flow) * 100 / total
    mix[#mix + 1] = m
    names[#names + 1] = sp.name
    s.qd = s.qd + (sp.qd or 1)
    s.bytes = sp.bytes and s.bytes and s.bytes + sp.bytes or nil
    s.ios = sp.ios and s.ios and s.ios + sp.ios or nil
  end
  s.mix = mix
  s.batch = nil
  -- jobs that end by size: fio holds the ratio while both run, then the
  -- one left runs alone to its own size; one mix cannot, so their sizes
  -- must be in the ratio of their flow (else each job's count is wrong)
  if s.bytes then
    local a = ws[1]
    for _, w in ipairs(ws) do
      if w.spec.bytes * math.abs(a.flow) ~= a.spec.bytes * math.abs(w.flow) then
        input_error("%s: flow: jobs '%s' (%d bytes, flow %d) and '%s' (%d bytes, flow %d) end by size, and their "
          .. "sizes are not in the ratio of their flow: fio runs the rest of one alone once the other is done, "
          .. "which iomoon's one mix cannot (give time_based with a runtime, or sizes in the flows' ratio)",
          w.job.where, a.spec.name, a.spec.bytes, math.abs(a.flow), w.spec.name, w.spec.bytes, math.abs(w.flow))
      end
    end
  end
  if s.qd == #ws then s.qd = 1 end -- sync jobs, one I/O at a time each: one at a time together
  for k, v in pairs(s) do ph[k] = v; from[ph][k] = from[base] and from[base][k] end
  ph.name = fit_name(string.format("group %d: %s", index, table.concat(names, " + ")), #" (verify)")
  from[ph].mix = string.format("flow: a spec per job, weighed %s", table.concat((function()
    local t = {}
    for _, w in ipairs(ws) do t[#t + 1] = string.format("%s %d", w.spec.name, math.abs(w.flow)) end
    return t end)(), " : "))
  from[ph].qd = "the flow jobs' iodepths added"
  return ph
end

-- The smallest block size of a mix (each spec's bs: a size, a list of
-- sizes, or of {size, weight}).
local function smallest_bs(mix)
  local bs = math.huge
  for _, m in ipairs(mix) do
    for _, e in ipairs(type(m.bs) == "table" and m.bs or { m.bs }) do
      bs = math.min(bs, type(e) == "table" and e[1] or e)
    end
  end
  return bs
end

-- The pass that reads back what a phase's verifying jobs wrote (fio's
-- do_verify): every unit of their region, checked.
local function verify_phase(ws, ph, from)
  local specs = {}
  for _, w in ipairs(ws) do
    if w.verify_after then
      local s = w.spec
      local bs = smallest_bs(s.mix)
      local v = { name = fit_name(s.name, #" (verify)") .. " (verify)", target = s.target, region = s.region, direct = s.direct,
        qd = s.qd, batch = s.batch, workers = s.workers, verify = "crc32c", verify_only = true, bs = bs,
        skip_unwritten = true }
      from[v] = { verify_only = "verify=crc32c, do_verify: fio reads back what it wrote",
        skip_unwritten = "do_verify: fio checks only the blocks its job wrote" }
      specs[#specs + 1] = v
    end
  end
  if #specs == 0 then return nil end
  local p = { engine = ph.engine, seed = ph.seed }
  for _, w in ipairs(ws) do
    if w.verify_after and w.verify_on_error then p.on_error = w.verify_on_error end
  end
  from[p] = {}
  if #specs == 1 then
    for k, v in pairs(specs[1]) do p[k] = v end
    from[p] = from[specs[1]]
    if p.on_error then from[p].on_error = "verify_fatal" end
    return p
  end
  p.name, p.streams = ph.name .. " (verify)", specs
  return p
end

-- The options of a group's jobs that act on its phase: exitall (the
-- phase ends with its first job: end_first, and the shortest runtime when
-- every job has one; exit_what=all: no later phase runs), and the runner's
-- steps (meta.fio: the first job's steady state or latency target, the
-- shortest startdelay and max_latency, end_fsync when any asks it), and
-- each stream's startdelay beyond the shortest (its start_delay).
function map.group_options(ws, ph, from)
  local fm
  for _, w in ipairs(ws) do
    if w.exitall and #ws > 1 and not ph.end_first then
      local shortest
      for _, x in ipairs(ws) do
        shortest = x.ph.duration and not x.spec.bytes and math.min(shortest or math.huge, x.ph.duration) or shortest
      end
      ph.end_first = true
      from[ph].end_first = "exitall: the group ends with its first job"
      local timed = true
      for _, x in ipairs(ws) do timed = timed and x.ph.duration and not x.spec.bytes end
      if timed then
        ph.duration = shortest
        from[ph].duration = "exitall: the group ends with its first job"
      end
    end
    if w.exitall and w.exit_all then
      w.fio = w.fio or {}
      w.fio.exit_all = true
    end
    if w.fio then
      fm = fm or {}
      for k, v in pairs(w.fio) do
        if k == "startdelay_s" or k == "max_latency_us" then fm[k] = math.min(fm[k] or math.huge, v)
        elseif fm[k] == nil then fm[k] = v end
      end
    end
  end
  -- startdelay between the jobs of a group: the phase waits the shortest
  -- (none when a job has none), each stream its own less that (start_delay)
  if fm and fm.startdelay_s and #ws > 1 then
    local least = math.huge
    for _, w in ipairs(ws) do least = math.min(least, w.fio and w.fio.startdelay_s or 0) end
    for i, w in ipairs(ws) do
      local d = (w.fio and w.fio.startdelay_s or 0) - least
      if d > 0 then
        ph.streams[i].start_delay = string.format("%gms", d * 1000)
        from[ph.streams[i]] = from[ph.streams[i]] or {}
        from[ph.streams[i]].start_delay = "startdelay (after the group's shortest)"
      end
    end
    fm.startdelay_s = least > 0 and least or nil
  end
  if fm and fm.stepped and #ws > 1 then
    input_error("%s: iodepth_mode=stepped in a group of %d jobs (give it a stonewall of its own)", ws[1].job.where, #ws)
  end
  if fm and next(fm) then
    ph.meta = ph.meta or {}
    ph.meta.fio = fm
  end
end

--- The phases of parsed jobs (iomoon.fio.job.jobs). ctx: target (a path over
-- every filename), allow_write, force. Returns phases, from (per table
-- given, field -> the fio options it came from) and notes (lines for
-- stderr).
function map.phases(jobs, ctx)
  map.notes = {}
  local from = {}
  for _, j in ipairs(jobs) do -- fio's file engines, nrfiles: files phases (iomoon.fio.files)
    if fio_files.is_files_job(j) then
      local phases, notes = fio_files.phases(jobs, ctx)
      return phases, from, notes
    end
  end
  local groups, cur = {}, nil
  local group_of = {} -- job name -> its group's number
  for i, j in ipairs(jobs) do
    local c = { v = function(k) local o = j.o[k]; return o and (o.value == nil and true or o.value) end }
    local clones = 1
    if c.v("offset_increment") and c.v("numjobs") then
      clones = job.int(c.v("numjobs"), j.o.numjobs.where .. ": numjobs", 1, 256)
    end
    for k = 0, clones - 1 do
      local cctx = ctx
      if clones > 1 then cctx = setmetatable({ clone = k }, { __index = ctx }) end
      local w = workload(j, cctx, from)
      -- wait_for=JOB: after that job's group (iomoon waits for the whole group: approximated)
      if w.wait_for and k == 0 then
        local g = group_of[w.wait_for]
        if not g then
          input_error("%s: wait_for: '%s' is not a job before this one", w.c.what("wait_for"), w.wait_for)
        end
        if g == #groups then w.stonewall = true end
      end
      if k > 0 then w.stonewall = false end
      if not cur or w.stonewall then
        cur = {}
        groups[#groups + 1] = cur
      end
      cur[#cur + 1] = w
      group_of[j.name] = #groups
      if i == 1 then w.stonewall = false end
    end
  end
  local phases = {}
  for gi, ws in ipairs(groups) do
    local ph = phase_of(ws, from, gi)
    map.group_options(ws, ph, from)
    local main = false
    for _, w in ipairs(ws) do if not w.only_verify then main = true end end
    if main then phases[#phases + 1] = ph end
    local v = verify_phase(ws, ph, from)
    if v then phases[#phases + 1] = v end
  end
  if #phases == 0 then input_error("no jobs: a job file needs a [job] section (or --name=NAME on the command line)") end
  return phases, from, map.notes
end

return map
