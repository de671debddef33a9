#!/bin/bash
# A schedule's rate is the rate asked, across segment boundaries: 60
# segments of 50 ms at 500 IOPS do 1500 I/Os in their 3 s, over 1 worker or
# 4 (each boundary once added half a gap per worker: 1470 and 1380). The
# null engine does no I/O, so the count is the schedule's; the bound below
# leaves room for a worker that wakes late or stalls near the end (30 ms).
# Exact counts per segment: tests/unit/test_workload.c.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
cat >s.lua <<'LUA'
local iomoon = require "iomoon"
local segs, mixed = {}, {}
for i = 1, 60 do
  segs[i] = { duration = 0.05, iops = 500 }
  mixed[i] = { duration = 0.05, iops = i % 2 == 1 and 500 or 1500 }
end
for _, w in ipairs { 1, 4 } do
  local r = iomoon.run { engine = "null", bs = "4k", qd = 4, workers = w, schedule = segs }
  print(r.ios, string.format("%.0f", r.rate_asked_iops), r.errors)
end
local r = iomoon.run { engine = "null", bs = "4k", qd = 4, workers = 2, schedule = mixed }
print(r.ios, r.errors)
LUA
out=$("$IOMOON" run --format none --quiet s.lua); ok $? "three scheduled phases on the null engine"
count_in() { awk -v n="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(n >= lo && n <= hi) }'; echo $?; }
read -r n1 asked1 e1 <<<"$(echo "$out" | sed -n 1p)"
read -r n4 asked4 e4 <<<"$(echo "$out" | sed -n 2p)"
read -r nm em <<<"$(echo "$out" | sed -n 3p)"
is "$asked1 $e1 $asked4 $e4" "500 0 500 0" "500 IOPS asked, no errors"
ok "$(count_in "$n1" 1485 1501)" "1 worker: $n1 I/Os in 60 segments of 50 ms at 500 IOPS (1500)"
ok "$(count_in "$n4" 1485 1502)" "4 workers: $n4 I/Os (1500; each worker's boundaries once lost half a gap)"
ok "$(count_in "$nm" 2985 3002)" "500 and 1500 IOPS by turns, 2 workers: $nm I/Os (3000), $em errors"
done_testing
