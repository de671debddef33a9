-- Reports: report.check_output, the atomic writer, the JSON encoder's
-- hard cases, escaping in every format, and errors and unmet rates shown.
local iomoon = require "iomoon"
local report = require "iomoon.report"
local json = require "iomoon.json"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]
local registry = debug.getregistry()

-- fn must raise an error of class `class` whose text matches pattern
local function raises(class, pattern, fn, what)
  local ok, err = pcall(fn)
  local msg = tostring(err)
  local good = not ok and getmetatable(err) == registry[class] and msg:find(pattern) ~= nil
  tap.ok(good, "%s: %s", what, ok and "(accepted)" or msg:gsub("\n", "\\n"))
end
local function refuses(pattern, fn, what) raises("iomoon.input_error", pattern, fn, what) end

local function sh(cmd) assert(os.execute(cmd), cmd) end
local function slurp(p) local f = assert(io.open(p, "rb")); local s = f:read("a"); f:close(); return s end
local function spit(p, s) local f = assert(io.open(p, "wb")); f:write(s); f:close() end
local function count(s, pat) local n = 0; for _ in s:gmatch(pat) do n = n + 1 end; return n end

-- ---- report.check_output ----
local target = dir .. "/target.dat"
spit(target, "user data\n")
tap.ok(report.check_output("-", { target }) == "-" and report.check_output("/dev/stdout", target) == "-",
  "check_output: - and /dev/stdout mean standard output")
tap.ok(report.check_output(dir .. "/new.json", { target }) == dir .. "/new.json", "check_output: a new file is fine")
spit(dir .. "/old.json", "{}")
tap.ok(report.check_output(dir .. "/old.json", { target }) == dir .. "/old.json", "check_output: an existing regular file is fine")
refuses("^%-%-output: '/dev/null' is a character device, not a regular file", function()
  report.check_output("/dev/null", {}) end, "check_output refuses a device")
sh("mkfifo '" .. dir .. "/fifo'")
refuses("'.*/fifo' is a FIFO, not a regular file", function() report.check_output(dir .. "/fifo", {}) end,
  "check_output refuses a FIFO without opening it")
sh("ln -s '" .. dir .. "/old.json' '" .. dir .. "/link.json'")
refuses("'.*/link.json' is a symbolic link; give the path of the file itself", function()
  report.check_output(dir .. "/link.json", {}) end, "check_output refuses a symbolic link")
refuses("'" .. dir:gsub("%p", "%%%0") .. "' is a directory", function() report.check_output(dir, {}) end,
  "check_output refuses a directory")
refuses("directory '.*/nope' does not exist", function() report.check_output(dir .. "/nope/r.json", {}) end,
  "check_output refuses a missing directory")
refuses("'.*/target.dat' is a target of this run", function() report.check_output(target, { target }) end,
  "check_output refuses the run's target")
refuses("is a target of this run", function() report.check_output(dir .. "/./target.dat", { { path = target } }) end,
  "check_output refuses the target by another spelling, given as an option table")
sh("ln '" .. target .. "' '" .. dir .. "/hard.dat'")
refuses("is a target of this run", function() report.check_output(dir .. "/hard.dat", target) end,
  "check_output refuses a hard link to the target")
refuses("is a target of this run", function() report.check_output(dir .. "/later.dat", { { dir .. "/x", { path = dir .. "/./later.dat" } } }) end,
  "check_output refuses a target not created yet, in a nested list")
refuses("^report: '.*/a\\nb' is a target", function() report.check_output(dir .. "/a\nb", { dir .. "/a\nb" }, "report") end,
  "check_output names the caller's option and escapes control bytes")
tap.ok(slurp(target) == "user data\n" and not io.open(dir .. "/new.json"), "check_output changed nothing on disk")

-- ---- the atomic writer ----
spit(dir .. "/keep.txt", "old")
sh("chmod 640 '" .. dir .. "/keep.txt'")
report.write_atomic(dir .. "/keep.txt", "new")
local mode = io.popen("stat -c %a '" .. dir .. "/keep.txt'"):read("l")
tap.ok(slurp(dir .. "/keep.txt") == "new" and mode == "640", "write_atomic replaces a file and keeps its mode (%s)", mode)
raises("iomoon.run_error", "fifo: is a FIFO, not a regular file: not replaced", function()
  report.write_atomic(dir .. "/fifo", "x") end, "write_atomic never replaces a FIFO")
raises("iomoon.run_error", "link.json: is a symbolic link, not replaced", function()
  report.write_atomic(dir .. "/link.json", "x") end, "write_atomic never replaces a symbolic link")
raises("iomoon.run_error", "nope/r.json: cannot create its temporary file: No such file or directory", function()
  report.write_atomic(dir .. "/nope/r.json", "x") end, "write_atomic names a missing directory")
local st = iomoon.stat(dir .. "/fifo", false)
local lst = iomoon.stat(dir .. "/link.json", false)
tap.ok(st.kind == "fifo" and lst.kind == "link" and slurp(dir .. "/old.json") == "{}", "the FIFO and the link are untouched")
local left = io.popen("ls -A '" .. dir .. "' | grep -c tmp-"):read("l")
tap.ok(left == "0", "no temporary file left behind (%s)", left)

-- ---- JSON's hard cases ----
local meta = { [1] = "a", ["1"] = "b", [true] = 1, ["true"] = 2, nan = 0 / 0, inf = -math.huge,
  holes = { 1, 2, nil, 4 }, bytes = "\xff\xfe", utf = "é \u{10FFFF}", surrogate = "\xed\xa0\x80" }
meta.self = meta
local deep = meta
for _ = 1, 300 do deep.d = {}; deep = deep.d end
local shared = { 1, 2 }
meta.twice = { shared, shared }
local s = json.encode(meta)
tap.ok(utf8.len(s) ~= nil, "JSON output is valid UTF-8")
tap.ok(json.encode({ [1] = "a", ["1"] = "b", [true] = 1, ["true"] = 2, [1.5] = 3, ["1.5"] = 5, ["1.5 (number)"] = 4 })
  == '{"1":"b","1 (number)":"a","1.5":5,"1.5 (number)":4,"1.5 (number) #2":3,"true":2,"true (boolean)":1}',
  "keys that collide after tostring are written once each")
tap.ok(s:find('"self":"<cycle>"', 1, true) and s:find('"twice":[[1,2],[1,2]]', 1, true), "a cycle is \"<cycle>\"; a shared table is written twice")
tap.ok(s:find('"<too deep>"', 1, true), "nesting past 100 levels is cut, not a stack overflow")
tap.ok(s:find('"nan":null', 1, true) and s:find('"inf":null', 1, true), "NaN and infinities are null")
tap.ok(s:find('"holes":{"1":1,"2":2,"4":4}', 1, true), "a list with a hole is an object")
tap.ok(s:find('"bytes":"\u{FFFD}\u{FFFD}"', 1, true) and s:find('"surrogate":"\u{FFFD}\u{FFFD}\u{FFFD}"', 1, true),
  "bytes that are not UTF-8 become U+FFFD")
tap.ok(s:find('"utf":"é \u{10FFFF}"', 1, true), "valid UTF-8 is written unchanged")

-- ---- every format: escaped names, errors and unmet rates shown ----
local t = { path = dir .. "/r.dat", size = "1m" }
local nasty = "x\nIOps=999\r\t\27[31m|<b>\xff"
local open = iomoon.run { name = nasty, target = t, engine = "sim", bs = "4k", qd = 1, duration = "0.2s",
  rate = { iops = 100000 } }
local closed = iomoon.run { name = "=cmd|' /C calc'!A0", target = t, engine = "sim", bs = "4k", ios = 100 }
local met = iomoon.run { name = "-1.5", target = t, engine = "sim", bs = "4k", qd = 1, duration = "0.5s",
  rate = { iops = 100 } }
tap.ok(report.rate_met(open) == false and report.rate_met(met) == true and report.rate_met(closed) == nil,
  "rate_met: unmet %.0f of 10000, met %.0f of 100, nil for a closed loop", open.iops, met.iops)
local rs = { open, closed, met }

local a = report.analyzer_string(rs)
tap.ok(count(a, "\nIOps=") == 3 and count(a, "AccessSpec=") == 3 and a:find("AccessSpec=x\\nIOps=999\\r\\t\\x1b[31m|<b>\\xff\n", 1, true),
  "analyzer: a name cannot add a line")
tap.ok(a:find("\nErrors=0\nStatus=rate not met: %d+ of 100000 IOPS\n") and count(a, "Status=") == 1,
  "analyzer: an unmet rate adds Errors= and Status=")

local md = report.markdown(rs)
local lines, above = {}, md:match("^(.-)\n\n|")
for l in md:gmatch("[^\n]+") do if l:sub(1, 1) == "|" then lines[#lines + 1] = l end end
tap.ok(above and above:find("engine ") and not above:find("\n|", 1, true),
  "markdown: how the phases ran, above the table: %s", above)
tap.ok(#lines == 5 and lines[3]:find("^| x\\\\nIOps=999\\\\r\\\\t\\\\x1b%[31m\\|\\<b\\>\\\\xff | "),
  "markdown: one line per result, | < > \\ escaped: %s", lines[3])
tap.ok(lines[1]:find("| Errors | Status |$") and lines[3]:find("| 0 | rate not met: %d+ of 100000 IOPS |$")
  and lines[4]:find("| 0 | ok |$"), "markdown: an Errors column and a status")

local tbl = report.render("table", rs)
local tl = {}
for l in tbl:gmatch("[^\n]+") do tl[#tl + 1] = l end
tap.ok(#tl == 5 and tl[1]:find("^engine ") and tl[3]:find("^x\\nIOps=999") and tl[3]:find("  rate not met: %d+ of 100000 IOPS$")
  and not tl[4]:find("rate") and not tl[5]:find("rate"), "table: how they ran, a header, one line per row, an unmet rate marked")

local rows = report.csv_rows(rs)
local h = {}
for i, name in ipairs(rows[1]) do h[name] = i end
tap.ok(rows[3][h["Access Specification Name"]] == "'=cmd|' /C calc'!A0" and rows[4][h["Access Specification Name"]] == "-1.5",
  "csv: a formula gets a leading ', a number does not")
tap.ok(rows[2][h["Asked IOps"]] == "100000.00" and rows[2][h["Rate Met"]] == "no" and rows[3][h["Rate Met"]] == ""
  and rows[4][h["Rate Met"]] == "yes" and rows[3][h["Asked IOps"]] == "", "csv: Asked IOps and Rate Met")
local cs = report.csv_string(rs)
tap.ok(cs == iomoon.csv.format(rows) and cs:sub(1, 15) == '"Target Type","', "csv_string is csv.format of the rows")
report.write_csv(dir .. "/r.csv", rs)
local back = iomoon.csv.read(dir .. "/r.csv")
tap.ok(#back == 4 and back[2][h["Access Specification Name"]] == nasty, "write_csv: read back, the name intact")

-- ---- the writer ----
do
  local cwd = io.popen("pwd"):read("l")
  local w = report.writer("-", "json")
  w:add(closed)
  tap.ok(w.stdout and not io.open(cwd .. "/-"), "writer('-') writes no file named -")
  local f = report.writer(dir .. "/live.md", "markdown")
  f:add(closed)
  tap.ok(slurp(dir .. "/live.md"):find("| 0 | ok |"), "writer: a markdown file after each result")
  meta = {}
  local bomb = setmetatable({}, { __pairs = function() error("no pairs for you") end })
  local broken = setmetatable({ meta = bomb }, { __index = closed })
  raises("iomoon.run_error", "the json report cannot be rendered .*; the previous file is kept", function()
    local j = report.writer(dir .. "/live.json", "json"); j:add(closed); j:add(broken); j:close() end,
    "writer: a render that fails is a run error")
  tap.ok(#json.encode(json) >= 2 and slurp(dir .. "/live.json"):find('"name": "=cmd'), "the previous file is kept")
end

print("1.." .. tap.n)
