-- iomoon.ping: `iomoon ping`, ioping 1.3's command line and output.
-- One request at a time at a random (or, with -L, the next) offset of the
-- working set, its time printed as ioping prints it; the closing statistics
-- and the raw lines (-p, -B) are ioping's, figure for figure. doc/cli.md
-- ("iomoon ping", "Coming from ioping and fio") says what differs.

local iomoon = require "iomoon"
local json = require "iomoon.json"
local util = require "iomoon.util"

local ping = {}

local visible = util.shown

-- ioping's units, in the order its print_suffix tries them
local TIME_UNITS = { { "hour", 3600 * 10 ^ 9 }, { "min", 60 * 10 ^ 9 }, { "s", 10 ^ 9 }, { "ms", 10 ^ 6 },
  { "us", 1000 }, { "ns", 1 } }
local SIZE_UNITS = { { "PiB", 1 << 50 }, { "TiB", 1 << 40 }, { "GiB", 1 << 30 }, { "MiB", 1 << 20 },
  { "KiB", 1 << 10 }, { "B", 1 } }
local INT_UNITS = { { "T", 10 ^ 12 }, { "G", 10 ^ 9 }, { "M", 10 ^ 6 }, { "k", 1000 }, { "", 1 } }

-- A figure as ioping prints it: the first unit not larger than the value
-- (truncated to an integer first, as its long long), no decimals when the
-- value is a whole number of that unit, one when it is 10 units or more,
-- else two.
local function fmt(val, units)
  val = math.floor(val)
  local i = 1
  while val < units[i][2] and units[i][2] > 1 do i = i + 1 end
  local name, mul = units[i][1], math.floor(units[i][2])
  local prec = val % mul == 0 and 0 or (val >= mul * 10 and 1 or 2)
  local s = string.format("%." .. prec .. "f", val / mul)
  return name ~= "" and s .. " " .. name or s
end

local function ftime(ns) return fmt(ns, TIME_UNITS) end
local function fsize(b) return fmt(b, SIZE_UNITS) end
local function fint(n) return fmt(n, INT_UNITS) end
ping.format = { time = ftime, size = fsize, int = fint }

-- ioping's argument suffixes (case-insensitive); a bare number is bytes,
-- seconds or a count.
local SIZE_SFX = { [""] = 1, b = 1, k = 1 << 10, kb = 1 << 10, kib = 1 << 10, m = 1 << 20, mb = 1 << 20,
  mib = 1 << 20, g = 1 << 30, gb = 1 << 30, gib = 1 << 30, t = 1 << 40, tb = 1 << 40, tib = 1 << 40,
  sector = 512, page = 4096 }
local TIME_SFX = { [""] = 10 ^ 9, s = 10 ^ 9, sec = 10 ^ 9, ms = 10 ^ 6, msec = 10 ^ 6, us = 1000, usec = 1000,
  ns = 1, nsec = 1, m = 60 * 10 ^ 9, min = 60 * 10 ^ 9, h = 3600 * 10 ^ 9, hour = 3600 * 10 ^ 9 }
local INT_SFX = { [""] = 1, k = 1000, m = 10 ^ 6, g = 10 ^ 9, t = 10 ^ 12 }
local KINDS = {
  size = { SIZE_SFX, "a size (512, 4k, 1m, 2g; sector, page)" },
  time = { TIME_SFX, "a time (a bare number is seconds; ns us ms s min h)" },
  int = { INT_SFX, "a whole count (10, 5k, 1m)" },
}

-- The value v of option `flag` read as `kind` (size, time, int): an
-- integer >= 0, or an input error naming the option.
local function parse_value(lib, flag, v, kind)
  local sfx, what = KINDS[kind][1], KINDS[kind][2]
  local num, unit = tostring(v):match("^(%d*%.?%d+)%s*(%a*)$")
  if not num then num, unit = tostring(v):match("^(%d+%.)%s*(%a*)$") end
  local mul = unit and sfx[unit:lower()]
  local n = mul and math.tointeger(math.floor(tonumber(num) * mul + 0.5))
  if not n or (kind == "int" and tonumber(num) * mul ~= n) or n > (1 << 62) then
    lib.input_error("%s: '%s' is not %s", flag, visible(tostring(v)), what)
  end
  return n
end

-- ioping's options: letter -> long name, and whether it takes a value.
local OPTS = {
  c = { "count", "int" }, i = { "interval", "time" }, w = { "work-time", "time" }, s = { "size", "size" },
  S = { "work-size", "size" }, o = { "work-offset", "size" }, p = { "print-count", "int" },
  a = { "warmup", "int" }, L = { "linear" }, W = { "write" }, D = { "direct" }, C = { "cached" },
  A = { "async" }, R = { "rapid" }, q = { "quiet" }, k = { "keep" }, B = { "batch" }, J = { "json" },
  Y = { "sync" }, y = { "dsync" },
}
-- ioping's other options, refused by name
local REFUSED = { G = "read-write", N = "nowait", H = "hipri", b = "burst",
  e = "entropy", l = "speed-limit", r = "rate-limit", t = "min-time", T = "max-time", I = "time",
  P = "print-interval", h = "help", v = "version" }
-- iomoon's own long options
local OWN = { ["allow-write"] = true, force = true }
local LONG = {}
for k, v in pairs(OPTS) do LONG[v[1]] = k end
for k, v in pairs(REFUSED) do LONG[v] = k end
ping.OPTS, ping.REFUSED = OPTS, REFUSED

local SUPPORTED = "-c -i -w -s -S -o -p -a -L -W -D -C -A -Y -y -R -q -k -B -J, --allow-write, --force"

-- Record option letter l (value v) in o; refuses ioping's other options.
local function take(lib, o, l, v, shown)
  if REFUSED[l] then
    lib.input_error("%s (-%s): ioping's option, not supported by iomoon ping (supported: %s)", shown,
      REFUSED[l], SUPPORTED)
  end
  if l == "W" then o.W = (o.W or 0) + 1 else o[l] = v or true end
end

-- A long option a ("-count", "--count=5", "--allow-write") at args[i]:
-- the next index.
local function long_opt(lib, args, i, o)
  local a = args[i]
  local name, val = a:match("^%-%-?([%a][%w%-]*)=(.*)$")
  if not name then name = a:match("^%-%-?([%a][%w%-]*)$") end
  if name and OWN[name] then
    if val then lib.input_error("--%s takes no value", name) end
    o[name] = true
    return i + 1
  end
  local l = name and LONG[name]
  if not l then
    lib.input_error("unknown option %s (iomoon ping takes ioping's options: %s)", visible(a), SUPPORTED)
  end
  if OPTS[l] and OPTS[l][2] and not val then
    val = args[i + 1]
    if val == nil then lib.input_error("%s needs a value", visible(a)) end
    i = i + 1
  elseif val and not (OPTS[l] and OPTS[l][2]) then
    lib.input_error("%s takes no value", visible(a))
  end
  take(lib, o, l, val, visible(a))
  return i + 1
end

-- Short options bundled in args[i] ("-RLB", "-c10", "-c 10"): the next index.
local function short_opts(lib, args, i, o)
  local a = args[i]
  local j = 2
  while j <= #a do
    local l = a:sub(j, j)
    if not OPTS[l] and not REFUSED[l] then
      lib.input_error("unknown option -%s (iomoon ping takes ioping's options: %s)", visible(l), SUPPORTED)
    end
    if OPTS[l] and OPTS[l][2] then
      local v = a:sub(j + 1)
      if v == "" then
        v = args[i + 1]
        if v == nil then lib.input_error("-%s needs a value", l) end
        i = i + 1
      end
      take(lib, o, l, v, "-" .. l)
      return i + 1
    end
    take(lib, o, l, nil, "-" .. l)
    j = j + 1
  end
  return i + 1
end

--- The path and options of `iomoon ping ARGS`, as ioping's getopt_long_only
-- reads them: short options bundled or not, values attached or not, long
-- names with one dash or two, options after the path.
function ping.parse(args, lib)
  local o, path, i = {}, nil, 1
  while i <= #args do
    local a = args[i]
    if a == "--" then
      for j = i + 1, #args do
        if path then lib.input_error("one path only (got %s and %s)", visible(path), visible(args[j])) end
        path = args[j]
      end
      break
    elseif a:match("^%-%-") or (a:match("^%-%a%a") and LONG[a:match("^%-([%a][%w%-]*)")]) then
      i = long_opt(lib, args, i, o)
    elseif a:match("^%-.") then
      i = short_opts(lib, args, i, o)
    else
      if path then lib.input_error("one path only (got %s and %s)", visible(path), visible(a)) end
      path = a
      i = i + 1
    end
  end
  if not path then
    lib.input_error("give a directory, file or device (iomoon ping [-c N] [-i 1s] [-s 4k] PATH)")
  end
  return path, o
end

-- The settings of a run from the options o, as ioping derives them.
local function settings(lib, o)
  local function v(l, kind) return o[l] and parse_value(lib, "-" .. l, o[l], kind) end
  local c = {
    count = v("c", "int"), interval = v("i", "time"), deadline = v("w", "time"), size = v("s", "size"),
    wsize = v("S", "size"), offset = v("o", "size") or 0, period = v("p", "int"), warmup = v("a", "int") or 1,
    linear = o.L, write = o.W, direct = o.D, cached = o.C, async = o.A, quiet = o.q or o.R or o.B,
    keep = o.k, batch = o.B, temp_wsize = o.R and (64 << 20) or (1 << 20), json = o.J,
    sync = o.Y and "sync" or o.y and "dsync" or nil, -- both: O_SYNC, which holds O_DSYNC
  }
  if c.count == 0 then c.count = nil end
  if c.period == 0 then c.period = nil end
  if c.deadline == 0 then c.deadline = nil end
  if o.R then
    c.interval = c.interval or 0
    c.deadline = c.deadline or 3 * 10 ^ 9
  end
  c.interval = c.interval or 10 ^ 9
  if c.size == 0 then lib.input_error("-s: 0 is not a request size (1 byte or more)") end
  c.size = c.size or (c.linear and (256 << 10) or 4096)
  if c.wsize == 0 then c.wsize = nil end
  if c.wsize then c.temp_wsize = c.wsize elseif c.size > c.temp_wsize then c.temp_wsize = c.size end
  if c.async and c.sync and not c.write then
    lib.input_error("-%s with -A: a one-I/O phase opens its target O_SYNC or O_DSYNC for writes only (give -W -C, "
      .. "or leave out -A)", o.Y and "Y" or "y")
  end
  if c.async and c.write and not c.cached then
    lib.input_error("-A with -W needs -C: the fdatasync ioping times after each write is not asynchronous here "
      .. "(iomoon ping -A -W -C, or without -A)")
  end
  return c
end

-- A name for the temporary file in dir: ioping.tmp with -k, else
-- ioping.tmp.XXXXXX, a name nothing has.
local function temp_name(dir, keep)
  local prefix = dir:gsub("/+$", "") .. "/ioping.tmp"
  if keep then return prefix end
  local chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
  for _ = 1, 100 do
    local s = {}
    for k = 1, 6 do
      local n = math.random(#chars)
      s[k] = chars:sub(n, n)
    end
    local p = prefix .. "." .. table.concat(s)
    if not iomoon.stat(p, false) then return p end
  end
  error("no free name for a temporary file in " .. dir)
end

-- The filesystem's size, as statvfs gives it (stat -f), or nil.
local function fs_size(path)
  local h = io.popen("stat -f -c '%S %b' -- '" .. path:gsub("'", "'\\''") .. "' 2>/dev/null")
  if not h then return nil end
  local bs, blocks = h:read("a"):match("^(%d+) (%d+)")
  h:close()
  return bs and tonumber(bs) * tonumber(blocks)
end

-- What ioping names of a target: its filesystem, device and the
-- filesystem's size ("ext4", "/dev/vda", 270553174016), or "block",
-- "device" and a device's own size.
local function target_info(path, t)
  if t:kind() == "block" then return { fstype = "block", device = "device", size = t:size() } end
  local ok, m = pcall(iomoon.machine, { path })
  local info = ok and m.targets and m.targets[1] or {}
  return { fstype = info.filesystem or "", device = info.device or "", size = fs_size(path) or 0 }
end

-- "ext4 /dev/vda 252.0 GiB" or "block device 64 MiB": ioping's header.
local function where(info)
  return string.format("%s %s %s", info.fstype, info.device, fsize(info.size))
end

-- ioping's statistics: counted (valid) requests after the warm-up, all
-- requests, and the time since start.
local function new_stats(start)
  return { start = start, count = 0, valid = 0, sum = 0, sum2 = 0, min = math.maxinteger, max = 0 }
end

-- Request number `request` taking ns into s; returns its notice (warmup,
-- fast, slow) as ioping gives it.
local function add(s, c, request, ns)
  s.count = s.count + 1
  if request <= c.warmup then return "warmup" end
  s.valid = s.valid + 1
  s.sum = s.sum + ns
  s.sum2 = s.sum2 + (ns + 0.0) * ns -- a double, as ioping's: ns * ns overflows an integer past 3 s
  if ns < s.min then s.min = ns end
  if ns > s.max then s.max = ns end
  if s.valid > 5 then
    local avg = s.sum // s.valid
    if ns * 2 < avg then return "fast" end
    if ns > avg * 2 then return "slow" end
  end
end

local function merge(s, o)
  s.count, s.valid = s.count + o.count, s.valid + o.valid
  s.sum, s.sum2 = s.sum + o.sum, s.sum2 + o.sum2
  if o.valid > 0 then
    s.min, s.max = math.min(s.min, o.min), math.max(s.max, o.max)
  end
end

-- The derived figures of s at `finish` (ioping's finish_statistics).
local function finish(s, finish_ns, size)
  s.load_time = finish_ns - s.start
  if s.valid > 0 then
    s.avg = s.sum / s.valid
    s.mdev = math.sqrt(math.max(0, s.sum2 / s.valid - s.avg * s.avg))
  else
    s.avg, s.mdev, s.min, s.max = 0, 0, 0, 0
  end
  s.iops = s.sum > 0 and 1e9 * s.valid / s.sum or 0
  s.load_iops = s.load_time > 0 and 1e9 * s.count / s.load_time or 0
  s.speed, s.load_speed = s.iops * size, s.load_iops * size
  s.size, s.load_size = s.valid * size, s.count * size
end

-- ioping's raw line (-p, -B): valid, time in them, iops, bytes/s, min, avg,
-- max, mdev, all requests, wall time (ns).
local function raw(s)
  print(string.format("%d %.0f %.0f %.0f %d %.0f %d %.0f %d %d", s.valid, s.sum, s.iops, s.speed, s.min, s.avg,
    s.max, s.mdev, s.count, s.load_time))
end

-- ---- -J: ioping's JSON, object for object ----

-- The wall clock (seconds since the epoch, with ioping's microseconds) of
-- the monotonic iomoon.now() value ns: one reading of `date +%s.%N` at
-- the start, the monotonic clock from there.
local function wall_clock()
  local mono0, wall0 = iomoon.now(), nil
  local h = io.popen("date +%s.%N 2>/dev/null")
  if h then
    wall0 = tonumber(h:read("a"))
    h:close()
  end
  wall0 = wall0 or os.time()
  return function(ns) return wall0 + (ns - mono0) / 1e9 end
end

-- The start of one of ioping's objects: "," before all but the first,
-- the time (of the last request) and the target.
local function json_head(j, at_ns)
  local t = j.clock(at_ns)
  local s = string.format('%s{\n  "timestamp": %f,\n  "localtime": "%s",\n  "target": {\n    "path": %s,\n'
    .. '    "fstype": %s,\n    "device": %s,\n    "device_size": %d\n  },\n', j.n > 0 and "," or "", t,
    os.date("%Y-%m-%dT%H:%M:%S%z", math.floor(t)), json.encode(j.path), json.encode(j.info.fstype),
    json.encode(j.info.device), j.info.size)
  j.n = j.n + 1
  return s
end

-- A request's object: its number, operation, size, time (ns) and whether
-- it is left out of the statistics (a warm-up request).
local function json_request(j, c, n, ns, at_ns, notice)
  io.stdout:write(json_head(j, at_ns), string.format('  "io": {\n    "request": %d,\n    "operation": "%s",\n'
    .. '    "size": %d,\n    "time": %d,\n    "ignored": %s\n  }\n}', n, c.write and "write" or "read", c.size, ns,
    notice == "warmup" and "true" or "false"))
end

-- A statistics object (s finished): ioping's "stat" (the counted
-- requests) and "load" (every request over the wall time).
local function json_stats(j, s, at_ns)
  io.stdout:write(json_head(j, at_ns), string.format('  "stat": {\n    "count": %d,\n    "size": %d,\n'
    .. '    "time": %.0f,\n    "iops": %f,\n    "bps": %.0f,\n    "min": %d,\n    "avg": %.0f,\n    "max": %d,\n'
    .. '    "mdev": %.0f\n  },\n  "load": {\n    "count": %d,\n    "size": %d,\n    "time": %d,\n    "iops": %f,\n'
    .. '    "bps": %.0f\n  }\n}', s.valid, s.size, s.sum, s.iops, s.speed, s.min, s.avg, s.max, s.mdev, s.count,
    s.load_size, s.load_time, s.load_iops, s.load_speed))
end

-- ioping's closing statistics.
local function summary(label, s, c)
  print(string.format("\n--- %s ioping statistics ---", label))
  print(string.format("%s requests completed in %s, %s %s, %s iops, %s/s", fint(s.valid), ftime(s.sum),
    fsize(s.size), c.write and "written" or "read", fint(s.iops), fsize(s.speed)))
  print(string.format("generated %s requests in %s, %s, %s iops, %s/s", fint(s.count), ftime(s.load_time),
    fsize(s.load_size), fint(s.load_iops), fsize(s.load_speed)))
  print(string.format("min/avg/max/mdev = %s / %s / %s / %s", ftime(s.min), ftime(s.avg), ftime(s.max),
    ftime(s.mdev)))
end

-- One request at byte off of t, through its probe p: its nanoseconds (the
-- system calls only: pread, or pwrite and fdatasync; with -A a one-I/O
-- phase on io_uring, its submission to its completion).
local function request(t, p, c, off, data, n)
  local drop = not c.cached
  if c.async then
    if drop then p:read(off, 0, true) end -- length 0: the cache from off to the end of the file
    local r = iomoon.run { name = "ping", target = t, engine = c.async, qd = 1, workers = 1, bs = c.size,
      read = c.write and 0 or 100, random = 0, region = { offset = off, size = c.size }, ios = 1,
      direct = c.direct and true or false, seed = n, sync = c.sync }
    return r.lat.mean_ns
  end
  if c.write then
    if #data >= 8 then data = string.pack("<I8", n) .. data:sub(9) end
    return p:write(off, data, drop, not c.cached)
  end
  return p:read(off, c.size, drop)
end

-- len random bytes (incompressible; the first 8 of each write become its
-- request number, so no two writes are alike)
local function random_data(len)
  local r = {}
  for k = 1, len // 8 + 1 do r[k] = string.pack("<I8", math.random(0, math.maxinteger)) end
  return table.concat(r):sub(1, len)
end

-- The loop of requests, as ioping's main loop; returns the total statistics.
local function loop(t, c, label)
  local data = c.write and random_data(c.size) or nil
  local p = t:probe { direct = c.direct and true or false, write = c.write and true or false, sync = c.sync }
  local now = iomoon.now()
  if c.json then io.stdout:write("[") end
  local part, total = new_stats(now), new_stats(now)
  local deadline = c.deadline and now + c.deadline
  local next_at, n, woff = now, 0, 0
  local slots = c.wsize // c.size
  while not iomoon.interrupted() do
    n = n + 1
    if not c.linear then woff = math.random(0, slots - 1) * c.size end
    local ns = request(t, p, c, c.offset + woff, data, n)
    now = iomoon.now()
    next_at = next_at + c.interval
    if now > next_at then next_at = now end
    local notice = add(part, c, n, ns)
    if c.json and not c.quiet then
      json_request(c.json, c, n, ns, now, notice)
    elseif not c.quiet then
      print(string.format("%s %s %s (%s): request=%d time=%s%s", fsize(c.size), c.write and ">>>" or "<<<", label[1],
        label[2], n, ftime(ns), notice and " (" .. notice .. ")" or ""))
    end
    if c.period and part.valid >= c.period then
      finish(part, now, c.size)
      if c.json then json_stats(c.json, part, now) else raw(part) end
      io.stdout:flush()
      merge(total, part)
      part = new_stats(now)
    end
    if c.linear then
      woff = woff + c.size
      if woff + c.size > c.wsize then woff = 0 end
    end
    if iomoon.interrupted() or (c.count and n >= c.count) or (deadline and next_at >= deadline) then break end
    if next_at > now then
      if not c.quiet then io.stdout:flush() end
      iomoon.sleep((next_at - now) / 1e9)
    end
  end
  local last = now -- ioping's last objects carry the time of the last request
  now = iomoon.now()
  p:close()
  merge(total, part)
  finish(total, now, c.size)
  return total, last
end

-- The target of a file or device path (no temporary file), with
-- iomoon's and ioping's rules for -W: -WWW, and --allow-write for a file
-- iomoon did not create or a device (--force for one in use).
local function open_path(lib, path, st, c, o)
  if c.write and (c.write < 3) then
    lib.input_error("-W on %s %s: think twice, then use -WWW to shred it (and --allow-write), as ioping; "
      .. "a directory gets a temporary file that -W may write", st.kind == "block" and "the device" or "the file",
      visible(path))
  end
  if c.write and not o["allow-write"] then
    lib.input_error("-WWW on %s: iomoon did not create it; writing to it needs --allow-write too", visible(path))
  end
  if c.keep then lib.input_error("-k: %s is not a directory (-k keeps a directory's ioping.tmp)", visible(path)) end
  local ok, t = pcall(iomoon.target, { path = path, create = false, fill = false,
    allow_write = o["allow-write"] or nil, force = o.force or nil })
  if not ok then
    lib.input_error("%s", type(t) == "table" and (t.field == "target.path" and t.what or t.msg) or tostring(t))
  end
  return t
end

-- The temporary file in directory dir (ioping's: 1 MiB past -o, 64 MiB
-- with -R, -S's size if given; filled with random data and synced); with -k
-- dir/ioping.tmp, kept and reused. Returns the target and its path.
local function open_temp(lib, dir, c)
  local tmp = temp_name(dir, c.keep)
  local st = iomoon.stat(tmp, false)
  if st and st.kind ~= "file" then
    lib.input_error("-k: %s is not a regular file", visible(tmp))
  end
  local ok, t = pcall(iomoon.target, { path = tmp, size = c.offset + c.temp_wsize, fill = "random",
    allow_write = true })
  if not ok then
    if not st and not c.keep then os.remove(tmp) end
    error(t, 0)
  end
  t:fsync()
  return t, tmp
end

-- The working set of t from c (ioping's checks), and sector alignment
-- for -D.
local function check_geometry(lib, t, c, path)
  local size = t:size()
  if (c.wsize and c.wsize > size) or c.offset > size - (c.wsize or 0) then
    lib.input_error("%s: %s is too small for this (%d bytes; -o %d, -S %d)", c.wsize and "-S" or "-o",
      visible(path), size, c.offset, c.wsize or 0)
  end
  c.wsize = c.wsize or size - c.offset
  if c.size > c.wsize then
    lib.input_error("-s: %d bytes of requests do not fit in %d bytes of %s (-S, -o)", c.size, c.wsize, visible(path))
  end
  local sector = t:sector()
  if c.direct and (c.size % sector ~= 0 or c.offset % sector ~= 0) then
    lib.input_error("-%s: %d is not a multiple of the %d-byte sector of %s (-D: direct I/O)",
      c.size % sector ~= 0 and "s" or "o", c.size % sector ~= 0 and c.size or c.offset, sector, visible(path))
  end
  if c.async and not c.direct and (c.size % sector ~= 0 or c.offset % sector ~= 0) then
    lib.input_error("-A: -s %d and -o %d must be multiples of the %d-byte sector of %s", c.size, c.offset, sector,
      visible(path))
  end
end

-- The engine of -A: io_uring, else libaio (one I/O per phase either way).
local function async_engine(lib)
  local works = {}
  for _, e in ipairs((iomoon.engines())) do works[e.name] = e.works end
  if works.io_uring then return "io_uring" end
  if works.libaio then return "libaio" end
  lib.input_error("-A: neither io_uring nor libaio works here (iomoon list says why)")
end

--- iomoon ping ARGS: ioping 1.3's command line (doc/cli.md).
function ping.cli(args, lib)
  local path, o = ping.parse(args, lib)
  local c = settings(lib, o)
  local st, msg = iomoon.stat(path)
  if not st and util.is_url(path) then
    lib.input_error("%s: a URL (iomoon ping measures a directory, file or block device; a LUN or export is "
      .. "measured with iomoon quick --target URL --qd 1)", visible(path))
  end
  if not st then lib.input_error("%s does not exist (%s)", visible(path), msg or "stat failed") end
  if st.kind ~= "directory" and st.kind ~= "file" and st.kind ~= "block" then
    lib.input_error("%s is not a directory, a regular file or a block device", visible(path))
  end
  if c.async then c.async = async_engine(lib) end
  local t, tmp
  if st.kind == "directory" then
    if c.write and c.write >= 3 then
      lib.input_error("-WWW: %s is a directory; its temporary file takes -W", visible(path))
    end
    if (c.wsize or 0) > 0 and c.size > c.wsize then
      lib.input_error("-s: %d bytes of requests do not fit in %d bytes (-S)", c.size, c.wsize)
    end
    if c.direct and (c.size % 512 ~= 0 or c.offset % 512 ~= 0) then
      lib.input_error("-%s: %d is not a multiple of 512 bytes (-D: direct I/O)", c.size % 512 ~= 0 and "s" or "o",
        c.size % 512 ~= 0 and c.size or c.offset)
    end
    t, tmp = open_temp(lib, path, c)
    c.wsize = c.temp_wsize
  else
    t = open_path(lib, path, st, c, o)
  end
  local ok, err = pcall(function()
    check_geometry(lib, t, c, path)
    iomoon.set_progress(false)
    local info = target_info(tmp or path, t)
    local label = { visible(path), where(info) }
    if c.json then c.json = { n = 0, path = path, info = info, clock = wall_clock() } end
    local total, last = loop(t, c, label)
    if c.json then
      json_stats(c.json, total, last)
      io.stdout:write("]\n")
    elseif c.batch then
      raw(total)
    elseif not (c.quiet and c.period) then
      summary(label[1] .. " (" .. label[2] .. ")", total, c)
    end
  end)
  t:close()
  if tmp and not c.keep then os.remove(tmp) end
  if not ok then error(err, 0) end
  return 0
end

return ping
