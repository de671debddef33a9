-- Traces: every format read exactly (written by tests/trace_gen.py with what a
-- load must give), format detection, device and window cuts, malformed lines,
-- unknown options, save -> load round trips, a result's trace saved.
-- arg: tests dir, $TMP.
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local T, dir = arg[1], arg[2]

-- every trace the script reads, written by one run of trace_gen.py
local jobs = {}
local function gen(fmt, out, extra)
  jobs[#jobs + 1] = string.format("%s %s/%s %s", fmt, dir, out, extra or "")
  return dir .. "/" .. out
end
local formats = {
  { "iolog2", "iolog2" }, { "iolog3", "iolog3" }, { "blktrace", "blktrace" }, { "blktrace-cpu", "blktrace" },
  { "msr", "msr", "--unsorted" }, { "alibaba", "alibaba", "--unsorted" }, { "csv", "csv", "--unsorted" },
  { "own", "csv", "--unsorted" }, { "blktrace", "blktrace", "--swap", "swapped" },
}
local bads = { { "iolog3", 9, "read without its offset and length" },
  { "iolog2", 12, "'x' is not a whole number" }, { "alibaba", 5, "3 fields %(expected 5" },
  { "msr", 40, "3 fields %(expected 7" }, { "own", 2, "3 fields %(expected at least 5%)" } }
for _, f in ipairs(formats) do
  local name = f[1] .. (f[4] or "")
  f.path = gen(f[1], name .. ".trace", "--n 3000 --seed 7 --expect " .. dir .. "/" .. name .. ".exp " .. (f[3] or ""))
end
local nowait = gen("iolog2", "nowait.trace", "--n 50 --no-wait --expect " .. dir .. "/nowait.exp")
for _, f in ipairs(bads) do f.path = gen(f[1], "bad-" .. f[1], "--n 100 --bad " .. f[2]) end
do
  local p = assert(io.popen("python3 " .. T .. "/trace_gen.py --batch", "w"))
  p:write(table.concat(jobs, "\n"), "\n")
  assert(p:close(), "trace_gen.py --batch failed")
end

local function expected(path)
  local e = {}
  for line in io.lines(path) do
    local t, op, off, len, dev = line:match("^(%d+) (%a+) (%d+) (%d+) (.+)$")
    e[#e + 1] = { time_ns = tonumber(t), op = op, offset = tonumber(off), len = tonumber(len), device = dev }
  end
  return e
end

-- how many of t's records differ from the list e (and the first that does)
local function diff(t, e)
  local bad, first = 0, nil
  if #t ~= #e then return math.huge, string.format("%d records, want %d", #t, #e) end
  for i = 1, #e do
    local r, w = t[i], e[i]
    if r.time_ns ~= w.time_ns or r.op ~= w.op or r.offset ~= w.offset or r.len ~= w.len or r.device ~= w.device then
      bad = bad + 1
      first = first or string.format("[%d] got %d %s %d %d %s, want %d %s %d %d %s", i, r.time_ns, r.op, r.offset,
        r.len, r.device, w.time_ns, w.op, w.offset, w.len, w.device)
    end
  end
  return bad, first or "all equal"
end

local csv_cols = { time = "ts", op = "kind", offset = "sector", len = "bytes", device = "disk", time_unit = "us",
  offset_unit = 512 }
for _, f in ipairs(formats) do
  local name, path = f[1] .. (f[4] or ""), f.path
  local e = expected(dir .. "/" .. name .. ".exp")
  local t = iomoon.trace.load(path, f[1] == "csv" and { columns = csv_cols } or nil)
  local bad, first = diff(t, e)
  tap.ok(bad == 0 and t.format == f[2], "%s%s: %d records, format %s detected, time/op/offset/len/device exact "
    .. "(%d differ: %s)", f[1], f[4] and " (" .. f[4] .. ")" or "", #t, t.format, bad, first)
end

-- the format given matches the one detected; a wrong one is refused
do
  local p = dir .. "/iolog3.trace"
  local a, b = iomoon.trace.load(p), iomoon.trace.load(p, { format = "iolog" })
  local c = iomoon.trace.load(p, { format = "iolog3" })
  tap.ok(#a == #b and #a == #c and b.format == "iolog3", "format = \"iolog\"/\"iolog3\" read the same %d records", #b)
  tap.refuses("line 1: expected \"fio version 2 iolog\"", function() iomoon.trace.load(p, { format = "iolog2" }) end,
    "an iolog3 file read as iolog2")
  tap.refuses("line 1: not a fio iolog", function() iomoon.trace.load(dir .. "/msr.trace", { format = "iolog" }) end,
    "an MSR file read as iolog")
  local bad, first = diff(iomoon.trace.load(nowait), expected(dir .. "/nowait.exp"))
  tap.ok(bad == 0, "iolog2 without waits: every record at time 0 (%s)", first)
end

-- the object
do
  local t = iomoon.trace.load(dir .. "/iolog3.trace")
  local devs = t:devices()
  tap.ok(#devs == 2 and (devs[1] == "/tmp/dev-a" or devs[1] == "/tmp/dev-b"), "t:devices(): %s",
    table.concat(devs, ", "))
  tap.ok(t[0] == nil and t[#t + 1] == nil and t[1].time_ns == 0 and t[1].t_s == 0, "t[1] at 0; t[0], t[#t+1] nil")
  tap.ok(math.abs(t.span_s - t[#t].time_ns / 1e9) < 1e-12 and t.path == dir .. "/iolog3.trace" and t.skipped == 0,
    "span_s %.6f is the last record's time; path; skipped 0", t.span_s)
  tap.ok(tostring(t):find("3000 records, 2 devices", 1, true) ~= nil, "tostring: %s", tostring(t))
  tap.refuses("trace: no field 'spn_s' %(did you mean 'span_s'%?%)", function() return t.spn_s end, "t.spn_s")
end

-- device selection and the window
do
  local p, e = dir .. "/msr.trace", expected(dir .. "/msr.exp")
  local t = iomoon.trace.load(p, { device = "usr/1" })
  local want, t0 = {}, nil
  for _, r in ipairs(e) do
    if r.device == "usr/1" then
      t0 = t0 or r.time_ns
      want[#want + 1] = { time_ns = r.time_ns - t0, op = r.op, offset = r.offset, len = r.len, device = r.device }
    end
  end
  local bad, first = diff(t, want)
  tap.ok(bad == 0 and #t:devices() == 1, "device = \"usr/1\": its %d records only, rebased (%s)", #t, first)
  tap.ok(#iomoon.trace.load(p, { disk = "usr/0" }) == #e - #want, "disk = \"usr/0\" (alias): the other %d", #e - #want)
  tap.refuses("device: \"usr/9\" is not a device of .*its devices: \"usr/[01]\", \"usr/[01]\"", function()
    iomoon.trace.load(p, { device = "usr/9" })
  end, "an unknown device, listing those seen")
  local from, to = 0.0001, 0.0004 -- 100 us to 400 us
  local win = iomoon.trace.load(p, { from = from, to = "400us" })
  want, t0 = {}, nil
  for _, r in ipairs(e) do
    if r.time_ns >= from * 1e9 and r.time_ns < to * 1e9 then
      t0 = t0 or r.time_ns
      want[#want + 1] = { time_ns = r.time_ns - t0, op = r.op, offset = r.offset, len = r.len, device = r.device }
    end
  end
  bad, first = diff(win, want)
  tap.ok(bad == 0 and #win > 10, "from = 100 us, to = \"400us\": %d records in [from, to), rebased (%s)", #win, first)
  tap.refuses("no records in the window", function() iomoon.trace.load(p, { from = "1h" }) end, "an empty window")
  tap.refuses("opts.to: not after from", function() iomoon.trace.load(p, { from = 2, to = 1 }) end, "to before from")
end

-- malformed lines: the line number, or counted with skip_bad
do
  for _, f in ipairs(bads) do
    local p = f.path
    tap.refuses("bad%-" .. f[1] .. ": line " .. f[2] .. ": " .. f[3], function() iomoon.trace.load(p) end,
      f[1] .. " with a bad line " .. f[2])
    local t = iomoon.trace.load(p, { skip_bad = true })
    tap.ok(#t == 100 and t.skipped == 1 and t.first_bad_line == f[2], "%s skip_bad: %d records, skipped %d, "
      .. "first_bad_line %d", f[1], #t, t.skipped, t.first_bad_line)
  end
  local cut = io.open(dir .. "/blktrace.trace", "rb"):read("a")
  local f = io.open(dir .. "/cut.blk", "wb")
  f:write(cut:sub(1, #cut - 10))
  f:close()
  tap.refuses("cut.blk: event %d+ at byte %d+: cut short", function() iomoon.trace.load(dir .. "/cut.blk") end,
    "a blktrace file cut inside an event")
  f = io.open(dir .. "/junk", "w")
  f:write("hello,world\n")
  f:close()
  tap.refuses("the format cannot be told", function() iomoon.trace.load(dir .. "/junk") end, "an unknown format")
end

-- unknown fields and wrong types, each named
tap.refuses("trace.load.opts: unknown field 'devcie' %(did you mean 'device'%?%)", function()
  iomoon.trace.load(dir .. "/msr.trace", { devcie = "usr/0" })
end, "opts.devcie")
tap.refuses("trace.load.opts.columns: unknown field 'ofset' %(did you mean 'offset'%?%)", function()
  iomoon.trace.load(dir .. "/csv.trace", { columns = { op = 1, ofset = 2, len = 3 } })
end, "columns.ofset")
tap.refuses("trace.load.opts.from: a table is not a duration", function()
  iomoon.trace.load(dir .. "/msr.trace", { from = {} })
end, "from = {}")
tap.refuses("trace.load.opts.format: 'blktrce' is not a format %(did you mean 'blktrace'%?", function()
  iomoon.trace.load(dir .. "/msr.trace", { format = "blktrce" })
end, "format = \"blktrce\"")
tap.refuses("trace.load.opts.skip_bad: a string is not true or false", function()
  iomoon.trace.load(dir .. "/msr.trace", { skip_bad = "yes" })
end, "skip_bad = \"yes\"")

-- save -> load: exact (iolog to the microsecond, fio's unit)
do
  local t = iomoon.trace.load(dir .. "/iolog3.trace")
  for _, fmt in ipairs { "iolog", "csv" } do
    local p = dir .. "/saved." .. fmt
    local n = iomoon.trace.save(t, p, fmt)
    local back = iomoon.trace.load(p)
    local e = {}
    for i = 1, #t do e[i] = t[i] end
    local bad, first = diff(back, e)
    tap.ok(n == #t and bad == 0, "save as %s, load: %d records identical (%s)", fmt, #back, first)
  end
  tap.refuses("is a directory, not a regular file", function() iomoon.trace.save(t, dir) end, "saving over a directory")
  tap.refuses("nothere/x.iolog", function() iomoon.trace.save(t, dir .. "/nothere/x.iolog") end,
    "saving where no parent directory is")
  tap.refuses("trace.save.format: 'jsn' is not a format", function() iomoon.trace.save(t, dir .. "/x", "jsn") end,
    "format = \"jsn\"")
  tap.ok(io.open(dir .. "/x") == nil and io.open(dir .. "/nothere") == nil, "refused saves created nothing")
end

-- quoted CSV fields (libcsv), saved as CSV and back; fio cannot hold such names
do
  local f = io.open(dir .. "/quoted.csv", "w")
  f:write('time_ns,op,offset,len,device\n0,read,0,4096,"dev,1"\n', '5,"Write",4096,512,"say ""hi"""\n')
  f:close()
  local t = iomoon.trace.load(dir .. "/quoted.csv")
  local d = t:devices()
  tap.ok(#t == 2 and d[1] == "dev,1" and d[2] == 'say "hi"' and t[2].op == "write" and t[2].time_ns == 5,
    "quoted CSV fields: devices %s and %s", d[1], d[2])
  iomoon.trace.save(t, dir .. "/quoted2.csv", "csv")
  local back = iomoon.trace.load(dir .. "/quoted2.csv")
  tap.ok(back:devices()[1] == "dev,1" and back:devices()[2] == 'say "hi"' and back[2].len == 512,
    "saved as CSV and loaded: the same names")
  tap.refuses("holds a space or control byte, which fio's iolog cannot hold", function()
    iomoon.trace.save(t, dir .. "/quoted.iolog")
  end, "a device name with a space saved as an iolog")
end

-- a result run with trace = N, saved and loaded: its own records
do
  local target = dir .. "/data"
  local r = iomoon.run { target = { path = target, size = "8m" }, bs = "4k", read = 60, random = 100, qd = 1,
    ios = 400, trace = 400 }
  local tr = r.trace
  local e = {}
  for i = 1, #tr.op do
    e[i] = { start = tr.start_ns[i], op = tr.op[i], offset = tr.offset[i], len = tr.len[i] }
  end
  table.sort(e, function(a, b) return a.start < b.start end)
  for _, fmt in ipairs { "iolog", "csv" } do
    local p = dir .. "/result." .. fmt
    iomoon.trace.save(r, p, fmt)
    local t = iomoon.trace.load(p)
    local bad = #t == #e and 0 or math.huge
    for i = 1, math.min(#t, #e) do
      local a, b = t[i], e[i]
      if a.op ~= b.op or a.offset ~= b.offset or a.len ~= b.len or a.device ~= target then bad = bad + 1 end
      local dt = (b.start - e[1].start) - a.time_ns
      if fmt == "csv" and dt ~= 0 or fmt == "iolog" and math.abs(dt) >= 1000 then bad = bad + 1 end
    end
    tap.ok(bad == 0 and #t == 400, "a result with trace = 400 saved as %s: %d records, ops, offsets, lengths and "
      .. "device equal the result's, times from start_ns (%s)", fmt, #t, bad == 0 and "all equal" or bad .. " differ")
  end
  local plain = iomoon.run { target = target, bs = "4k", ios = 10 }
  tap.refuses("trace.save: the result has no trace records", function()
    iomoon.trace.save(plain, dir .. "/none.iolog")
  end, "a result without trace = N")
  tap.refuses("trace.save: a number is neither a trace", function() iomoon.trace.save(42, dir .. "/n") end, "42")
end
do -- start_ns from one end of the integers to the other: no signed overflow (UBSan), a span over 2^63 ns refused
  local res = { target = "x", trace = { start_ns = { math.mininteger, math.maxinteger }, op = { "read", "write" },
    offset = { 0, 4096 }, len = { 4096, 4096 }, worker = { 0, 0 } } }
  tap.refuses("trace.save: .*the records span 18446744074 s, more than 2%^63 ns", function()
    iomoon.trace.save(res, dir .. "/wide.csv", "csv")
  end, "start_ns from mininteger to maxinteger")
  tap.ok(io.open(dir .. "/wide.csv") == nil, "nothing written for it")
end
do -- offsets and spans past 2^63 (negative in Lua) refused at load, with the line
  local f = assert(io.open(dir .. "/far.iolog", "w"))
  f:write("fio version 3 iolog\n0 d read 18446744073709543424 4096\n"); f:close()
  tap.refuses("far.iolog: line 2: offset 18446744073709543424 %+ length 4096 ends past 2%^63 bytes", function()
    iomoon.trace.load(dir .. "/far.iolog")
  end, "an offset past 2^63")
  f = assert(io.open(dir .. "/long.csv", "w"))
  f:write("1,R,0,4096,0\n1,W,0,4096,18446744073709551\n"); f:close()
  tap.refuses("the records span 18446744074 s, more than 2%^63 ns", function()
    iomoon.trace.load(dir .. "/long.csv")
  end, "an Alibaba trace spanning 584 years")
end
do -- decimal CSV times past INT64_MAX ns keep their values (llround capped both at 2^63: a span of 0)
  local f = assert(io.open(dir .. "/bigt.csv", "w"))
  f:write("t,op,off,len\n17000000000000000000.0,R,0,4096\n17000000000000004096.0,R,4096,4096\n"); f:close()
  local t = iomoon.trace.load(dir .. "/bigt.csv", { columns = { time = "t", op = "op", offset = "off", len = "len" } })
  tap.ok(t[2].time_ns == 4096, "times of 1.7e19 ns and 4096 ns later: 4096 ns apart (%d)", t[2].time_ns)
end
print("1.." .. tap.n)
