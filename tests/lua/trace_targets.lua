-- A saved trace names, for each record, the file its I/O went to
-- (doc/replay.md, "Saving traces"): a phase with streams, several targets
-- per stream (workers spread over them), saved, loaded and checked record
-- by record against the files themselves, then replayed onto them.
-- arg[1]: the tests directory, arg[2]: a directory to write in. Under
-- mpirun every rank runs it on targets of its own ({rank} in the paths)
-- and writes its TAP lines to DIR/tap.RANK instead of standard output.
package.path = arg[1] .. "/?.lua;" .. package.path
local tap = require "tap"
local iomoon = require "iomoon"
local dir = arg[2]
local rank = iomoon.cluster.rank
local out = io.stdout
if iomoon.cluster.on then
  out = assert(io.open(string.format("%s/tap.%d", dir, rank), "w"))
  _G.print = function(s) out:write(s, "\n") end -- tap.lua prints its lines
end

local MiB = 1048576
-- the files, all different sizes; not filled, so a block never written
-- reads as zeros (its holes)
local files = {
  { name = "data1", size = 224 * MiB }, { name = "data2", size = 96 * MiB },
  { name = "wal1", size = 32 * MiB }, { name = "wal2", size = 16 * MiB },
}
local function path(f, r) return string.format("%s/%s.%s.dat", dir, f.name, r) end
local size_of = {}
for _, f in ipairs(files) do size_of[path(f, rank)] = f.size end
local function target(f) return { path = path(f, "{rank}"), size = f.size, fill = false } end

-- every write carries the offset pattern: word k of a block at offset o
-- holds o + 8k, little-endian, where a hole holds 0. Under MPI a quota is
-- split over the ranks: each rank does 1200 + 800 writes either way.
local ranks = iomoon.cluster.ranks
local r = iomoon.run { name = "db", trace = 100000, pattern = "offset",
  streams = {
    { name = "data", target = { target(files[1]), target(files[2]) }, workers = 4, qd = 4, bs = "8k", read = 0,
      random = 100, ios = 1200 * ranks },
    { name = "wal", target = { target(files[3]), target(files[4]) }, workers = 2, qd = 1, bs = "4k", read = 0,
      ios = 800 * ranks },
  } }
-- (under MPI a result's counts are every rank's; its trace is the rank's own)
tap.ok(r.ios == 2000 * ranks and #r.trace.op == 2000, "rank %d: the phase ran its 2000 writes, each traced (%d of "
  .. "%d, %d)", rank, #r.trace.op, r.ios, ranks)
tap.ok(type(r.target) == "table" and #r.target == 4 and #(rawget(r.trace, "target") or {}) == 2000,
  "rank %d: result.target lists the 4 files; result.trace.target says where each record went", rank)

-- the word at byte `at` of a file (nil past its end)
local function word_at(f, at)
  f:seek("set", at)
  local s = f:read(8)
  return s and #s == 8 and string.unpack("<i8", s) or nil
end

for _, fmt in ipairs { "csv", "iolog" } do
  local saved = string.format("%s/saved.%d.%s", dir, rank, fmt)
  local n = iomoon.trace.save(r, saved, fmt)
  local t = iomoon.trace.load(saved)
  local handles, per, outside, unwritten = {}, {}, 0, 0
  local first
  for i = 1, #t do
    local x = t[i]
    local size = size_of[x.device]
    per[x.device] = (per[x.device] or 0) + 1
    if not size or x.offset + x.len > size then
      outside = outside + 1
      first = first or string.format("record %d: %s at %d + %d", i, x.device, x.offset, x.len)
    else
      handles[x.device] = handles[x.device] or assert(io.open(x.device, "rb"))
      -- the block holds this write (its last word: the first of a block at 0 is 0 either way)
      local at = x.offset + x.len - 8
      if word_at(handles[x.device], at) ~= at then
        unwritten = unwritten + 1
        first = first or string.format("record %d: %s at %d holds no write there", i, x.device, x.offset)
      end
    end
  end
  for _, h in pairs(handles) do h:close() end
  tap.ok(n == 2000 and #t == 2000 and outside == 0 and unwritten == 0,
    "rank %d, %s: each of %d saved records names a file whose block at its offset holds that write, inside the "
    .. "file (%d outside, %d not written there%s)", rank, fmt, #t, outside, unwritten, first and ": " .. first or "")
  -- the workers of each target: data1 and data2 two each of 300 writes, wal1 and wal2 one each of 400
  local want = { data1 = 600, data2 = 600, wal1 = 400, wal2 = 400 }
  local counts_ok = true
  for _, f in ipairs(files) do counts_ok = counts_ok and per[path(f, rank)] == want[f.name] end
  tap.ok(counts_ok, "rank %d, %s: records per file as the workers were spread (data1 %s, data2 %s, wal1 %s, wal2 %s)",
    rank, fmt, per[path(files[1], rank)], per[path(files[2], rank)], per[path(files[3], rank)],
    per[path(files[4], rank)])
end

-- replayed onto the files as recorded (offsets "exact" refuses, before any
-- I/O, a record past the end of its file): every file keeps its size
local t = iomoon.trace.load(string.format("%s/saved.%d.csv", dir, rank))
local devices, targets = {}, {}
for i, d in ipairs(t:devices()) do devices[d], targets[i] = i, d end
local ok, rr = pcall(iomoon.run, { name = "replay", target = targets, replay = { trace = t, devices = devices } })
local sizes_kept = true
for _, f in ipairs(files) do sizes_kept = sizes_kept and iomoon.stat(path(f, rank)).size == f.size end
tap.ok(ok and rr.write.ios == 2000 * ranks and sizes_kept, "rank %d: the saved trace replays onto its 4 files, each within "
  .. "its size (%s)", rank, ok and string.format("%d writes", rr.write.ios) or tostring(rr))
-- a table made by hand: several targets need a target column, and each
-- value a place in the list
local hand = { target = { "a", "b" }, trace = { start_ns = { 0, 1 }, op = { "read", "read" }, offset = { 0, 0 },
  len = { 4096, 4096 } } }
tap.refuses("result.trace.target is missing %(the result has 2 targets", function()
  iomoon.trace.save(hand, dir .. "/hand.csv", "csv")
end, "a result of two targets without result.trace.target")
hand.trace.target = { 1, 3 }
tap.refuses("record 2 has target 3, not a place in result.target %(1 to 2%)", function()
  iomoon.trace.save(hand, dir .. "/hand.csv", "csv")
end, "a record's target past the list")
if out ~= io.stdout then out:close() end
