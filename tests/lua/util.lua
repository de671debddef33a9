-- iomoon.util (shallow copies, the size formats) and the facts the Lua side
-- takes from the core: the engine list and the largest block size.
local iomoon = require "iomoon"
local util = require "iomoon.util"
local think = require "iomoon.think"
local suite = require "iomoon.suite"
local presets = require "iomoon.presets"
local tap = dofile(arg[1] .. "/tap.lua")

do
  local inner = {}
  local t = { a = 1, b = inner }
  local c = util.copy(t)
  tap.ok(c ~= t and c.a == 1 and c.b == inner, "copy: a new table, nested tables shared")
  tap.ok(next(util.copy(nil)) == nil, "copy(nil) is an empty table")
  local m = util.merge({ a = 1, b = 1 }, nil, { b = 2, c = 3 })
  tap.ok(m.a == 1 and m.b == 2 and m.c == 3, "merge: later tables replace earlier ones, nil skipped")
end
do
  local p = think.apply({ name = "mine", bs = "4k" }, { name = "preset", qd = 8 })
  tap.ok(p.name == "mine" and p.bs == "4k" and p.qd == 8, "think.apply keeps the phase's own name")
  local q = suite.apply({ bs = "8k" }, { qd = 4 }, { bs = "4k", read = 70 })
  tap.ok(q.bs == "8k" and q.read == 70 and q.qd == 4, "suite.apply: phase over defaults, options over both")
end

local sizes = {
  { util.ioping_size, 512, "512 B" }, { util.ioping_size, 4096, "4 KiB" }, { util.ioping_size, 1572864, "1.5 MiB" },
  { util.ioping_bytes_rate, 500, "500 B/s" }, { util.ioping_bytes_rate, 12 << 20, "12.0 MiB/s" },
  { util.analyzer_size, 512, "0.5k" }, { util.analyzer_size, 8192, "8k" }, { util.analyzer_size, 1 << 20, "1m" },
  { util.analyzer_size, 1000, "1000" },
  { util.iometer_size, 512, "0.5K" }, { util.iometer_size, 4096, "4K" }, { util.iometer_size, 1 << 20, "1024K" },
}
for _, s in ipairs(sizes) do
  local got = s[1](s[2])
  tap.ok(got == s[3], "%d bytes formats as %s (got %s)", s[2], s[3], got)
end

tap.ok(iomoon.limits.max_bs == 64 << 20, "iomoon.limits.max_bs is 64 MiB (got %s)", tostring(iomoon.limits.max_bs))
tap.ok(presets.parse("64m_100%Read_0%Random").bs == iomoon.limits.max_bs, "presets.parse takes a spec of max_bs")
tap.refuses("larger than the largest a phase runs, 64 MiB", function() return presets.parse "65m_100%Read_0%Random" end,
  "presets.parse refuses a spec above max_bs")
do
  local names = { "auto" }
  for _, e in ipairs((iomoon.engines())) do names[#names + 1] = e.name end
  local ok, err = pcall(iomoon.check, { engine = "warp", target = { path = arg[2] .. "/u.dat", size = "1m" } })
  tap.ok(not ok and tostring(err):find("(allowed: " .. table.concat(names, ", ") .. ")", 1, true),
    "an unknown engine's message lists the engine table (got %s)", tostring(err))
end

-- the helpers written once (util.shown is the one escaper of shown text)
tap.ok(util.shown("a\nb\r\tc\27d\127\255\xc2\x85") == "a\\nb\\r\\tc\\x1bd\\x7f\\xff\\u0085" and util.shown(nil) == ""
  and util.shown(12) == "12", "shown: \\n \\r \\t, \\xHH for controls and bytes not UTF-8, \\u for C1 (%s)",
  util.shown("a\nb\r\tc\27d\127\255\xc2\x85"))
tap.ok(util.shown("nbd://u:secret@h/x") == iomoon.redact("nbd://u:secret@h/x") and not util.shown("nbd://u:secret@h/x"):find("secret"),
  "shown leaves a URL's password out")
tap.ok(require("iomoon.report").visible == util.shown, "report.visible is util.shown")
do
  local ok, err = pcall(require("iomoon.errors").input, "x: '%s'", "a\nb\27")
  tap.ok(not ok and err.msg == "x: 'a\\nb\\x1b'", "errors.input shows its message as util.shown does (%s)", tostring(err))
end
tap.ok(util.trim("  a b \t\n") == "a b" and util.is_url("NBD://h/x") and not util.is_url("/dev/nbd0")
  and not util.is_url(nil), "trim, is_url")
tap.ok(util.finite(0) == 0 and util.finite(0 / 0) == nil and util.finite(math.huge) == nil and util.finite("1") == nil,
  "finite: a finite number, else nil")
tap.ok(util.whole(3) == "3" and util.whole(3.0) == "3" and util.whole(2 ^ 70) == "1180591620717411303424",
  "whole: integers and huge floats without a fraction")
tap.ok(util.csv_safe("=1+1") == "'=1+1" and util.csv_safe("-1.5") == "-1.5" and util.csv_safe(3) == 3,
  "csv_safe: a formula quoted, numbers left alone")
-- the core's messages show text as util.shown does (src/core/shown.h), byte for byte
for _, p in ipairs { "/nonexistent/a\nb\r\tc\27\127", "/nonexistent/\255\xc2\x85\xc2\xa0", "/nonexistent/\xc0\xaf\xed\xa0\x80",
  "/nonexistent/\xf0\x9f\x98\x80\xf4\x90\x80\x80 \xe2\x82" } do
  local ok, err = pcall(iomoon.check, { target = p, bs = "4k" })
  local got = not ok and tostring(err.msg):match("^phase%.target%.path: (.*) does not exist")
  tap.ok(got == util.shown(p), "the core shows %s as util.shown does (%s)", util.shown(p), tostring(got))
end
