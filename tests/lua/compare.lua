-- tests/lua/compare.lua: result.definition from Lua (tests/77-compare.t):
-- plain data that iomoon.check accepts and iomoon.run runs again.
package.path = arg[0]:match("^(.*)/") .. "/../?.lua;" .. package.path
local tap = require "tap"
local iomoon = require "iomoon"
local json = require "iomoon.json"

-- true when v holds only strings, numbers, booleans and tables of them
local function plain(v, depth)
  depth = depth or 0
  local t = type(v)
  if t ~= "table" then return t == "string" or t == "number" or t == "boolean" end
  if depth > 20 then return false end
  for k, x in pairs(v) do
    if not (type(k) == "string" or type(k) == "number") or not plain(x, depth + 1) then return false end
  end
  return true
end

-- a phase with defaults left out: the core's choices come back
local r = iomoon.run { engine = "sim", bs = "4k", duration = "0.1s" }
local d = r.definition
tap.ok(plain(d), "definition is plain data (no userdata, no functions)")
tap.ok(d.engine == "sim" and d.qd == 1 and d.workers == 1 and d.seed == 1 and d.dist == "uniform" and d.batch == "auto",
  "defaults left out come back: engine sim, qd 1, workers 1, seed 1, dist uniform, batch auto")
tap.ok(d.bs == "4k" and d.read == 100 and d.random == 0 and d.duration == "0.1s" and d.interval == "1s"
  and d.sim_latency == "100us" and d.ramp == 0, "and the mix (bs as given, 100 %% read, 0 %% random: sequential) and the times")
tap.ok(d.name == r.name and r.engine_asked == "sim", "the phase's name, and engine_asked")
tap.ok(pcall(iomoon.check, d), "iomoon.check accepts the definition")

-- a URL's password never reaches the definition (nor a results file)
r = iomoon.run { engine = "sim", bs = "4k", duration = "0.05s",
  meta = { url = "iscsi://bob%s3cret@host/iqn.2001-04.com.example:t/1", nbd = "nbd://u:pw@h/export", plain = "a%b@c" } }
tap.ok(r.definition.meta.url == "iscsi://bob@host/iqn.2001-04.com.example:t/1" and r.definition.meta.nbd == "nbd://u@h/export"
  and r.definition.meta.plain == "a%b@c", "a URL's password is left out of the definition: %s, %s",
  r.definition.meta.url, r.definition.meta.nbd)

-- a meta that nests deep and holds itself: cut, never a loop
local deep = {}
local at = deep
for i = 1, 40 do at.x = { i = i }; at = at.x end
at.loop = deep
r = iomoon.run { engine = "sim", bs = "4k", duration = "0.05s", meta = deep }
local levels, dm = 0, r.definition.meta
while type(dm.x) == "table" do dm = dm.x; levels = levels + 1 end
tap.ok(levels == 15 and plain(r.definition), "a meta nested 40 deep, holding itself: cut at 16 levels (%d below meta)", levels)

-- streams, a mix list, a target object, meta: copied; each stream's qd and workers resolved
local dir = os.getenv("TMPDIR") or "/tmp"
local path = string.format("%s/iomoon-cmp-%d.dat", dir, math.random(1, 1e9))
local t = iomoon.target { path = path, size = "1m" }
r = iomoon.run { name = "two streams", engine = "psync", target = t, duration = "0.1s", seed = 9, meta = { who = "x" },
  streams = { { name = "r", mix = { { bs = "4k", read = 100, weight = 75 }, { bs = "8k", read = 100, weight = 25 } } },
    { name = "w", bs = "4k", read = 100, qd = 1, workers = 2 } } }
d = r.definition
tap.ok(plain(d), "with a target object and streams: plain data")
tap.ok(d.target == path, "a target object becomes its path")
tap.ok(d.streams[1].workers == 1 and d.streams[2].workers == 2 and d.streams[2].qd == 1 and d.workers == nil,
  "each stream's workers and qd resolved; the phase's total workers not set")
tap.ok(#d.streams[1].mix == 2 and d.streams[1].mix[1].weight == 75 and d.meta.who == "x" and d.seed == 9,
  "the mix list, meta and seed copied")
tap.ok(pcall(iomoon.check, d), "iomoon.check accepts the streams' definition")
-- through JSON and back: still accepted, and equal
local back = json.decode(json.encode(d))
tap.ok(json.encode(back) == json.encode(d) and pcall(iomoon.check, back), "a JSON round trip gives the same definition, accepted")
local r2 = iomoon.run(back)
tap.ok(json.encode(r2.definition) == json.encode(d), "running the definition again gives the same definition")
os.remove(path)

-- the decoder keeps integers integers and empty objects objects
local v = json.decode('{"a": 12, "b": 1.5, "c": {}, "d": [], "e": "x\\u00e9\\n", "f": null, "g": [true, false]}')
tap.ok(math.type(v.a) == "integer" and v.b == 1.5 and json.encode(v.c) == "{}" and json.encode(v.d) == "[]"
  and v.e == "x\xc3\xa9\n" and v.f == nil and v.g[1] == true and v.g[2] == false, "json.decode: JSON values back")
tap.refuses("not JSON at line 2", function() json.decode('{"a":\n}') end, "a value missing")

-- iomoon.machine
local m = iomoon.machine({ "/" })
tap.ok(math.type(m.cores) == "integer" and m.cores >= 1 and m.targets[1].kind == "directory", "iomoon.machine: cores, targets")
tap.refuses("iomoon.machine", function() iomoon.machine(42) end, "a number")
print("1.." .. tap.n)
