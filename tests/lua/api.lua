-- The iomoon module's small functions: units, clock, histograms, CSV,
-- target methods, engines, and the error objects scripts can catch.
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]

tap.ok(iomoon.size("4k") == 4096 and iomoon.size("0.5k") == 512 and iomoon.size(123) == 123, "iomoon.size")
tap.ok(iomoon.duration("2m") == 120e9 and iomoon.duration(1.5) == 1500000000 and iomoon.duration("250us") == 250000,
  "iomoon.duration gives nanoseconds")
tap.refuses("size: '4q' has an unknown unit", function() return iomoon.size("4q") end, "a bad size")
tap.ok(type(iomoon.version) == "string" and iomoon.version:match("^%d+%.%d+%.%d+$"), "iomoon.version %s", iomoon.version)

local t0 = iomoon.now()
iomoon.sleep("50ms")
local dt = iomoon.now() - t0
tap.ok(math.type(t0) == "integer" and dt >= 50e6 and dt < 150e6, "now() in ns; sleep(50ms) took %.1f ms", dt / 1e6)

-- histograms
local h = iomoon.hist()
for v = 1, 100000 do h:record(v * 1000) end -- 1 us .. 100 ms, uniform
tap.ok(h:count() == 100000 and h:min() == 1000 and h:max() == 100000000, "hist count, min, max")
tap.near(h:mean(), 50000500, 1, "hist mean is exact")
tap.near(h:percentile(50), 50000000, 50000000 * 0.004, "hist p50 within 0.4 %%")
tap.near(h:percentile(99.9), 99900000, 99900000 * 0.004, "hist p99.9 within 0.4 %%")
local a, b = iomoon.hist(), iomoon.hist()
a:record(10, 3); b:record(1000000, 1)
a:merge(b)
tap.ok(a:count() == 4 and a:percentile(75) == 10 and a:percentile(100) == 1000000, "hist merge and weighted record")
tap.ok(#a:buckets() == 2 and a:buckets()[1][3] == 3, "hist buckets lists the non-empty ones")
tap.refuses("hist:percentile: 101", function() return h:percentile(101) end, "percentile 101")
tap.refuses("hist:record: %-5 is negative", function() return h:record(-5) end, "a negative value")

-- CSV round trip, with the characters that need quoting
local path = dir .. "/x.csv"
local w = iomoon.csv.writer(path)
w:row { "name", "value", "note" }
w:row { "4K; 100% Read", 12.5, 'say "hi", then\nleave' }
w:row { "empty", nil, "" }
w:close()
local rows = iomoon.csv.read(path)
tap.ok(#rows == 3 and rows[2][1] == "4K; 100% Read" and rows[2][2] == "12.5" and rows[2][3] == 'say "hi", then\nleave',
  "csv writer and reader agree, quotes and newlines included")
tap.ok(rows[3][2] == "" and #rows[3] == 3, "nil writes an empty field")
tap.refuses("csv.read: .*nope.csv: No such file", function() return iomoon.csv.read(dir .. "/nope.csv") end, "a missing csv")
do -- a writer never closed leaves no file (and no temporary)
  local w2 = iomoon.csv.writer(dir .. "/unfinished.csv")
  w2:row { "a" }
  w2 = nil
  collectgarbage()
  local left = io.popen('ls "' .. dir .. '" | grep -c unfinished'):read("l")
  tap.ok(left == "0", "an unclosed csv writer leaves nothing behind (%s files)", left)
end

-- target methods
local t = iomoon.target { path = dir .. "/t.dat", size = "1m", fill = "zero" }
tap.ok(t:size() == 1048576 and t:kind() == "file" and t:sector() >= 512 and t:created(), "target size, kind, sector, created")
tap.ok(t:read(4096, 8) == string.rep("\0", 8), "fill = zero writes zeros")
t:write(4096, "iomoon!!")
t:fsync()
tap.ok(t:read(4096, 8) == "iomoon!!", "target write then read")
tap.refuses("read: 8 bytes at offset 1048572 is past the end", function() return t:read(1048572, 8) end, "a read past the end")
local again = iomoon.target { path = dir .. "/t.dat" }
tap.ok(not again:created() and again:size() == 1048576 and again:read(4096, 8) == "iomoon!!", "an existing file is used as it is")
t:close()
tap.ok(not pcall(t.size, t), "a closed target refuses use")
do
  local r = iomoon.target { path = dir .. "/rnd.dat", size = "1m" }
  local s = r:read(0, 65536)
  local zeros = select(2, s:gsub("\0", ""))
  tap.ok(zeros < 1024, "the default fill is random data (%d zero bytes of 65536)", zeros)
  local f = io.popen("du -k '" .. dir .. "/rnd.dat'"):read("n")
  tap.ok(f >= 1024, "a filled file has no holes (%d KiB allocated)", f)
end
tap.refuses("target.size: 0 bytes", function() return iomoon.target { path = dir .. "/z.dat", size = 0 } end, "size 0")
tap.refuses("target.fill: 'ones' is not a fill", function() return iomoon.target { path = dir .. "/z.dat", size = 10, fill = "ones" } end, "fill")
tap.refuses("target: unknown field 'sise'", function() return iomoon.target { path = dir .. "/z.dat", sise = 10 } end, "typo")

-- engines: what works is the kernel's to say (tests/kernel_has.py asks it
-- directly); auto takes the first of io_uring, libaio, psync that does
local function kernel_has(what)
  local p = io.popen(string.format("python3 '%s/kernel_has.py' %s", arg[1], what))
  local why = p:read("a"):gsub("\n$", "")
  local _, _, code = p:close()
  if code == 0 or code == 1 then return code == 0, why end
  return nil, why
end
local has_uring, uring_why = kernel_has("io_uring")
local has_aio, aio_why = kernel_has("libaio")
local engines, auto = iomoon.engines()
local names = {}
for _, e in ipairs(engines) do names[#names + 1] = e.name .. (e.works and "+" or "-") end
if has_uring == nil or has_aio == nil then
  tap.skip("cannot tell which engines work here: " .. (has_uring == nil and uring_why or aio_why))
  tap.skip("cannot tell which engine auto should pick here")
else
  -- the network engines are built in wherever make deps ran (libnbd, libiscsi, libnfs)
  local want = string.format("io_uring%s libaio%s psync+ null+ sim+ nbd+ iscsi+ nfs+", has_uring and "+" or "-",
    has_aio and "+" or "-")
  local want_auto = has_uring and "io_uring" or has_aio and "libaio" or "psync"
  tap.ok(table.concat(names, " ") == want and auto == want_auto, "engines: %s (want %s); auto picks %s (want %s%s)",
    table.concat(names, " "), want, auto, want_auto, has_uring and "" or ": " .. uring_why)
  local r = iomoon.run { target = dir .. "/rnd.dat", bs = "4k", ios = 10 }
  tap.ok(r.engine == want_auto and (not has_uring or r.engine_features:find("fixed%-file")),
    "auto ran %s (%s)", r.engine, r.engine_features)
end

-- error objects: catchable, printable, and told apart
local ok, err = pcall(iomoon.run, { target = dir .. "/rnd.dat", bs = "4k", qd = 0 })
tap.ok(not ok and type(err) == "table" and tostring(err):find("phase.qd: 0") and getmetatable(err).__name == "iomoon.input_error",
  "an input error is a table that prints its message, __name iomoon.input_error")
tap.ok(err.field == "phase.qd" and err.what == "0 is out of range (allowed: 1 to 4096)",
  "an input error carries its field as data: field=%s what=%s", tostring(err.field), tostring(err.what))
ok, err = pcall(iomoon.run, { target = dir .. "/rnd.dat", mix = { { bs = "4k", weight = 50 }, { bs = 3000, weight = 50 } } })
tap.ok(not ok and err.field == "phase.mix[2].bs", "a nested field's path is the field: %s", tostring(err.field))
ok, err = pcall(require("iomoon.errors").input, "plan.find_max.p99: %s is not a latency", "x")
tap.ok(not ok and err.field == "plan.find_max.p99" and err.what == "x is not a latency",
  "errors.input from Lua carries the field as the core's do")
ok, err = pcall(require("iomoon.errors").input, "no field here")
tap.ok(not ok and err.field == nil and err.msg == "no field here", "a message without a field has none")
print("1.." .. tap.n)
