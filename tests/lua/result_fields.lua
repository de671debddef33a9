-- iomoon.result_fields (src/lua/lua_result_fields.c), the one description
-- of a result's tables (tests/72-util.t): every field a result has is
-- described, every described table of a result is sealed with its name,
-- an optional field it lacks reads as nil. arg[1]: tests/, arg[2]: a
-- directory of this test's own.
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]
local FIELDS = iomoon.result_fields
local INPUT_MT = debug.getregistry()["iomoon.input_error"]

-- a trace of n reads and writes, in fio's iolog v3
local function iolog(path, n)
  local f = assert(io.open(path, "w"))
  f:write("fio version 3 iolog\n0 d add\n0 d open\n")
  for i = 1, n do f:write(string.format("%d d %s %d 4096\n", i * 100, i % 3 == 0 and "write" or "read", (i % 64) * 4096)) end
  f:write(string.format("%d d close\n", n * 100))
  f:close()
  return path
end

-- results with as many of their tables as one machine makes: paced
-- (svc, rate), traced, named specs, trims and syncs, crc32c verification,
-- intervals, a replay, streams
local file = { path = dir .. "/rf.dat", size = "4m" }
local rich = {
  iomoon.run { name = "paced", target = file, engine = "psync", duration = "0.3s", interval = "100ms", rate = 2000,
    trace = 50, fsync = 4, mix = { { name = "r", bs = "4k", read = 70, trim = 10, weight = 80 }, { bs = "8k", weight = 20 } } },
  iomoon.run { name = "verified", target = file, engine = "psync", ios = 400, bs = "4k", read = 0, verify = "crc32c" },
  iomoon.run { name = "replay", target = file, engine = "psync", replay = iomoon.trace.load(iolog(dir .. "/t.log", 200)) },
  iomoon.run { name = "streams", target = file, engine = "psync", duration = "0.2s",
    streams = { { name = "a", bs = "4k" }, { name = "b", bs = "8k", read = 0 } } },
}

-- every described table of result r (its name in messages, its
-- description), found by walking the descriptions from "result"
local function tables_of(r)
  local out = {}
  local function walk(t, d, what)
    out[#out + 1] = { t = t, d = d, what = what }
    for _, f in ipairs(FIELDS[d]) do
      local x = rawget(t, f.name)
      if type(x) == "table" and f.table then
        if f.entries == "list" then
          for _, e in ipairs(x) do walk(e, f.table, what .. "." .. f.name .. "[i]") end
        elseif f.entries == "map" then
          for _, e in pairs(x) do walk(e, f.table, what .. "." .. f.name .. "[name]") end
        else
          walk(x, f.table, what .. "." .. f.name)
        end
      end
    end
  end
  walk(r, "result", "result")
  for _, s in ipairs(rawget(r, "streams") or {}) do walk(s, "result", "result") end
  return out
end

local seen, undescribed, unsealed, found = {}, {}, {}, 0
for _, r in ipairs(rich) do
  for _, tb in ipairs(tables_of(r)) do
    found = found + 1
    seen[tb.what] = true
    local known = {}
    for _, f in ipairs(FIELDS[tb.d]) do known[f.name] = true end
    for k in next, tb.t do
      if type(k) == "string" and not known[k] then undescribed[#undescribed + 1] = tb.what .. "." .. k end
    end
    local ok, err = pcall(function() return tb.t.zz_no_such_field end)
    if ok or getmetatable(err) ~= INPUT_MT or not tostring(err):find(tb.what .. ": no field 'zz_no_such_field'", 1, true) then
      unsealed[#unsealed + 1] = tb.what .. " (" .. tostring(err) .. ")"
    end
  end
end
table.sort(undescribed)
tap.ok(#undescribed == 0, "every field of the results' %d tables is in iomoon.result_fields%s", found,
  #undescribed > 0 and ": not " .. table.concat(undescribed, ", ") or "")
tap.ok(#unsealed == 0, "every described table is sealed: a misspelt field is an input error naming the table%s",
  #unsealed > 0 and ": not " .. table.concat(unsealed, "; ") or "")
local want = { "result.replay", "result.trace", "result.verify", "result.sync", "result.trim", "result.svc",
  "result.specs[name]", "result.mix[i]", "result.intervals[i]", "result.read.svc", "result.submit_sizes" }
local missing = {}
for _, w in ipairs(want) do if not seen[w] then missing[#missing + 1] = w end end
tap.ok(#missing == 0, "the results had the tables to check (%s)", #missing > 0 and "no " .. table.concat(missing, ", ")
  or table.concat(want, ", "))

-- what a result may lack reads as nil; what no result has is an error
local plain = rich[4].streams[1]
tap.ok(plain.replay == nil and plain.cluster == nil and plain.hosts == nil and plain.trim == nil and plain.verify == nil,
  "a result without a replay, a cluster, hosts, trims or verification reads them as nil")
tap.ok(rich[3].replay.speed ~= nil and rawget(rich[3].replay, "ios") > 0, "a replay's figures and settings are there")
local ok, err = pcall(function() return rich[3].replay.ios_done end)
tap.ok(not ok and tostring(err):find("result.replay: no field 'ios_done'", 1, true),
  "result.replay is sealed: %s", tostring(err))
ok, err = pcall(function() return rich[1].lat.meta end)
tap.ok(not ok and tostring(err):find("result.lat: no field 'meta'", 1, true),
  "an optional field of the result is not one of its latency's (%s)", tostring(err))

-- the descriptions the library reads: saved.lua's checks, html.lua's definition
local by = {}
for _, f in ipairs(FIELDS.result) do by[f.name] = f end
tap.ok(by.iops.saved and by.iops.measure and by.errors.count and by.hosts.entries == "list" and by.hosts.table == "host"
  and by.cluster.optional and by.qd.defines and not by.iops.defines,
  "iomoon.result_fields: saved, measure, count, defines, entries and table as the core describes them")
