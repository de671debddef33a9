-- shared.lua TESTS-DIR PATH GIVEN: two streams share one 1 MiB file to be
-- created, a region each: the first reads its first half, the second writes
-- the offset pattern over its second half. GIVEN says where the file is
-- named: "streams" (each stream's target is the same option table) or
-- "phase" (the phase's target, which both streams inherit). Checks that the
-- file was created once and that each stream did its own I/O within its own
-- half: in the result, in its trace, and in the bytes on disk.
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local path, given = arg[2], arg[3]
local HALF = 512 << 10

os.remove(path)
local t = { path = path, size = "1m" }
local reader = { region = { offset = 0, size = "512k" } }
local writer = { read = 0, bs = "4k", pattern = "offset", region = { offset = "512k", size = "512k" } }
local phase = { bs = "4k", duration = 0.2, trace = 1 << 20, streams = { reader, writer } }
if given == "phase" then phase.target = t else reader.target, writer.target = t, t end
local r = iomoon.run(phase)
local rs, ws = r.streams[1], r.streams[2]

tap.ok(r.target == path and rs.target == path and ws.target == path,
  "%s: the phase and both streams name the one file (%s, %s, %s)", given, tostring(r.target), rs.target, ws.target)
local f = assert(io.open(path, "rb"))
local data = f:read("a")
f:close()
tap.ok(#data == 2 * HALF, "%s: the file was created 1 MiB (%d bytes)", given, #data)
tap.ok(rs.ios > 0 and rs.write.ios == 0 and rs.bytes == rs.ios * 4096,
  "%s: the first stream read (%d reads of 4 KiB, %d writes)", given, rs.read.ios, rs.write.ios)
tap.ok(ws.ios > 0 and ws.read.ios == 0 and ws.bytes == ws.ios * 4096,
  "%s: the second stream wrote (%d writes of 4 KiB, %d reads)", given, ws.write.ios, ws.read.ios)

-- the trace: every read within the first half, every write within the second
local tr = r.trace
local reads, writes, stray, written = 0, 0, 0, {}
for i = 1, #tr.op do
  local lo, hi = tr.offset[i], tr.offset[i] + tr.len[i]
  if tr.op[i] == "read" and hi <= HALF then reads = reads + 1
  elseif tr.op[i] == "write" and lo >= HALF and hi <= 2 * HALF then
    writes = writes + 1; written[lo] = true
  else stray = stray + 1 end
end
tap.ok(#tr.op == r.ios and reads == rs.ios and writes == ws.ios and stray == 0,
  "%s: traced, the %d reads all in the first half, the %d writes all in the second (%d elsewhere)",
  given, reads, writes, stray)

-- on disk: the blocks holding their own offset are the ones written, and only those
-- (but for the one write in flight at the end, QD 1: it reached the disk
-- after the measured time, uncounted, untraced; a loaded machine shows it)
local stamped, wrong, late = 0, 0, 0
for off = 0, 2 * HALF - 4096, 4096 do
  local mine = string.unpack("<i8", data, off + 1) == off and string.unpack("<i8", data, off + 4089) == off + 4088
  if mine then stamped = stamped + 1 end
  if mine and not written[off] and off >= HALF then late = late + 1
  elseif mine ~= (written[off] == true) then wrong = wrong + 1 end
end
tap.ok(stamped > 0 and wrong == 0 and late <= 1,
  "%s: on disk, the %d blocks stamped with their offset are exactly those the writer wrote (%d differ; %d in flight at the end)",
  given, stamped, wrong, late)
print("1.." .. tap.n)
