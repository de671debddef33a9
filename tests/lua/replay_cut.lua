-- What a replay never issued (doc/replay.md, "How faithful"): records due
-- before the phase ended and not issued are missed, the others cut, and
-- on_time_pct is of the records due. The sim engine (a fixed service
-- time, one I/O at a time) makes a device too slow for a dense trace
-- whatever the machine's load; which records were due follows from the
-- trace's times and the duration alone, so those counts are exact.
-- arg[1]: the tests directory, arg[2]: a directory of this test's own.
local iomoon = require "iomoon"
local tap = dofile(arg[1] .. "/tap.lua")
local dir = arg[2]

-- n reads, gap_us apart, written as an iolog v3 trace; loaded
local function trace(name, n, gap_us)
  local f = assert(io.open(dir .. "/" .. name, "w"))
  f:write("fio version 3 iolog\n0 d add\n0 d open\n")
  for i = 0, n - 1 do f:write(string.format("%d d read %d 4096\n", i * gap_us, (i % 1000) * 4096)) end
  f:close()
  return iomoon.trace.load(dir .. "/" .. name)
end

-- the identities every replay's figures keep
local function consistent(rp)
  return rp.due_ios == rp.ios + rp.missed_ios and rp.on_time_ios == rp.ios - rp.late_ios and
    math.abs(rp.on_time_pct - (rp.due_ios > 0 and 100 * rp.on_time_ios / rp.due_ios or 0)) < 1e-9
end

local dense = trace("dense.iolog", 2000, 125) -- 2000 records within 0.25 s (8000 IOPS)

-- the issue's shape: every record due within the phase, a device that
-- completes one I/O a millisecond: most are missed, and on_time_pct is
-- of the 2000 due, not of the few issued
do
  local r = iomoon.run { name = "cut", engine = "sim", sim_latency = "1ms", qd = 1, duration = "0.25s", replay = dense }
  local rp = r.replay
  tap.ok(rp.planned_ios == 2000 and rp.due_ios == 2000 and rp.cut_ios == 0 and rp.missed_ios > 1000 and
    rp.ios < 400 and consistent(rp),
    "0.25 s of a 0.25 s trace at 1 ms an I/O: %d of 2000 due issued, %d missed, %d cut", rp.ios, rp.missed_ios,
    rp.cut_ios)
  tap.ok(rp.on_time_pct <= 100 * rp.ios / 2000,
    "on_time_pct %.2f is of the 2000 due (%d on time), never more than the %.1f %% issued", rp.on_time_pct,
    rp.on_time_ios, 100 * rp.ios / 2000)
end

-- cut by the duration at half the trace: the records of the second half
-- were not due (cut), those of the first half not issued are missed
do
  local r = iomoon.run { name = "half", engine = "sim", sim_latency = "1ms", qd = 1, duration = "0.125s",
    replay = dense }
  local rp = r.replay
  tap.ok(rp.due_ios == 1000 and rp.cut_ios == 1000 and rp.missed_ios == 1000 - rp.ios and rp.missed_ios > 0 and
    consistent(rp), "0.125 s of it: 1000 due (%d), 1000 cut (%d), %d issued, %d missed", rp.due_ios, rp.cut_ios,
    rp.ios, rp.missed_ios)
end

-- a replay that runs to its end: nothing missed, nothing cut
do
  local r = iomoon.run { name = "whole", engine = "sim", sim_latency = "10us", qd = 64, replay = dense }
  local rp = r.replay
  tap.ok(rp.ios == 2000 and rp.due_ios == 2000 and rp.missed_ios == 0 and rp.cut_ios == 0 and
    rp.planned_ios == 2000 and consistent(rp), "a replay run to its end: 2000 issued of 2000 planned, 0 missed, 0 cut")
end

-- no_stall ignores the times: what a duration leaves is cut, never missed
do
  local r = iomoon.run { name = "flat", engine = "sim", sim_latency = "1ms", qd = 1, duration = "0.1s",
    replay = { trace = dense, no_stall = true } }
  local rp = r.replay
  tap.ok(rp.missed_ios == 0 and rp.due_ios == rp.ios and rp.cut_ios == 2000 - rp.ios and rp.on_time_pct == 100,
    "no_stall cut by the duration: %d issued, 0 missed, %d cut, 100 %% on time", rp.ios, rp.cut_ios)
end

-- a quota ends the replay where it asked: the rest is cut, not missed
do
  local r = iomoon.run { name = "quota", engine = "sim", sim_latency = "1ms", qd = 1, ios = 50, replay = dense }
  local rp = r.replay
  tap.ok(rp.ios == 50 and rp.missed_ios == 0 and rp.cut_ios == 1950, "ios = 50: 50 issued, 0 missed, %d cut",
    rp.cut_ios)
end

-- passes: a short trace looped through a phase, three workers sharing it.
-- The records due are counted here one by one, pass after pass, as
-- replay.h schedules them (a pass starts one mean gap after the last
-- record of the one before); the core counts whole passes at once.
do
  local short = trace("short.iolog", 10, 100) -- 10 records over 0.9 ms
  local span_ns, n, until_ns = 900000, 10, 100000000
  local pass_ns = span_ns + span_ns // (n - 1)
  local function due(loops)
    local k = 0
    for p = 0, loops - 1 do
      for i = 0, n - 1 do
        if p * pass_ns + i * 100000 < until_ns then k = k + 1 end
      end
    end
    return k
  end
  for _, loop in ipairs { 40, 5000, true } do
    local r = iomoon.run { name = "passes", engine = "sim", sim_latency = "1ms", qd = 1, workers = 3,
      duration = "0.1s", replay = { trace = short, loop = loop } }
    local rp = r.replay
    local want = due(loop == true and 10000 or loop)
    local planned = loop == true and 0 or 10 * loop
    tap.ok(rp.due_ios == want and rp.planned_ios == planned and
      rp.cut_ios == (loop == true and 0 or planned - want) and consistent(rp),
      "loop = %s, 3 workers, 0.1 s: %d due (%d counted one by one), %d planned, %d cut, %d missed", tostring(loop),
      rp.due_ios, want, rp.planned_ios, rp.cut_ios, rp.missed_ios)
  end
end

-- streams: each replaying stream's own figures, and the phase's their sum
do
  local r = iomoon.run { name = "two", engine = "sim", sim_latency = "1ms", duration = "0.125s",
    streams = { { replay = dense, qd = 1 }, { replay = dense, qd = 1 } } }
  local a, b, all = r.streams[1].replay, r.streams[2].replay, r.replay
  tap.ok(a.due_ios == 1000 and b.due_ios == 1000 and all.due_ios == 2000 and all.missed_ios == a.missed_ios +
    b.missed_ios and all.planned_ios == 4000 and all.cut_ios == 2000 and consistent(all),
    "two replaying streams: 1000 due each, the phase 2000 due, %d missed, 2000 cut of 4000", all.missed_ios)
end
