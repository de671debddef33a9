-- tests/lua/74-snia-pts/stop.lua: the round where iomoon.pts stops, on
-- tracking values of our own (iomoon.run replaced by a fake that answers
-- every cell; the 4 KiB 100 % write cell gives the next value of a
-- series): it stops at the first round whose last 5 values pass the rule,
-- and after max_rounds when none does; report.pts reads the same verdict
-- back from meta.pts alone. arg[1]: a directory to name the (never
-- created) target in.
package.path = arg[0]:match("^(.*)/") .. "/../../?.lua;" .. package.path
local tap = require "tap"
local iomoon = require "iomoon"
local pts = require "iomoon.pts"
local ptsr = require "iomoon.report.pts"

local real_run = iomoon.run
local function with_series(series, max_rounds)
  local results, n = {}, 0
  iomoon.run = function(p)
    local m = p.meta.pts
    local iops = 1000
    if m.round >= 1 and m.bs == 4096 and m.read == 0 then n = n + 1; iops = series[n] end
    local r = { name = p.name, meta = p.meta, iops = iops, mb_per_s = iops * m.bs / 1e6, errors = 0,
      lat = { mean_ns = 1e5, max_ns = 2e5 }, write = { bytes = m.precondition and p.bytes or 0 } }
    results[#results + 1] = r
    return r
  end
  local opts = { target = { path = arg[1] .. "/never.dat", size = "16m" }, area_bytes = 16 << 20, engine = "null",
    quiet = true, options = { round = "0.02s", ["max-rounds"] = tostring(max_rounds), ["skip-purge"] = true } }
  local ok, out = pcall(pts.run, "iops", opts)
  iomoon.run = real_run
  if not ok then error(out, 0) end
  return out[1], results
end

-- rounds 1-2 far off, then flat from round 3: rounds 3..7 are the first steady window
local o, rs = with_series({ 100, 500, 1000, 1010, 990, 1000, 1005, 1000, 1000, 1000 }, 10)
tap.ok(o.steady == true and o.rounds == 7, "steady from round 3: stops after round 7 (steady %s, rounds %s)",
  tostring(o.steady), tostring(o.rounds))
tap.ok(#rs == 2 + 7 * 56, "2 preconditioning passes and 7 rounds of 56 cells ran (%d phases)", #rs)
local t = ptsr.tests(rs)[1]
tap.ok(t.steady and t.steady_round == 7 and t.window[1] == 3 and t.window[2] == 7,
  "report.pts reads it back: steady in round 7, window rounds 3 to 7 (%s %s %s-%s)", tostring(t.steady),
  tostring(t.steady_round), tostring(t.window[1]), tostring(t.window[2]))

-- a range of exactly 20 % of the mean passes; just over it does not
o = with_series({ 900, 1100, 1000, 1100, 900 }, 5)
tap.ok(o.steady == true, "range 200 of mean 1000 (20 %%), flat fit: steady (%s)", tostring(o.steady))
o = with_series({ 899, 1101, 1000, 1101, 899 }, 5)
tap.ok(o.steady == false and o.rounds == 5, "range 202 of mean 1000: not steady, stops at --max-rounds 5 (%s)",
  tostring(o.steady))

-- a steady climb: range within 20 % but the least-squares line rises by more than 10 %
o, rs = with_series({ 940, 970, 1000, 1030, 1060, 1090 }, 6)
tap.ok(o.steady == false and o.rounds == 6, "a climb of 3 %% a round (fit excursion 12 %%): not steady in 6 rounds")
t = ptsr.tests(rs)[1]
tap.ok(not t.steady and t.window[1] == 2 and t.window[2] == 6, "report.pts: not steady, the window shown is the last 5 rounds")
tap.ok(t.table["4096/0"] and math.abs(t.table["4096/0"].value - 1030) < 1e-9,
  "the window table's 4 KiB 0/100 cell is the mean of rounds 2 to 6 (%s)", tostring(t.table["4096/0"] and t.table["4096/0"].value))
