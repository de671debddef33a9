#!/bin/bash
# The examples (examples/*.lua, shortened) and the application models
# (suites of streams: postgres, lsm-store, jetstress, boot-storm) end to
# end: every stream does I/O of the kind its model says, the tables have a
# row per stream, syncs are counted exactly by a quota. Nothing here is
# held to the clock: the library's timed checks, the burn-in example's wait
# for a steady rate, the checkpoint's bursts in time and the postgres
# example's ten seconds are 70-library.t's.
. "$(dirname "$0")/lib.sh"

# the examples, shortened
"$IOMOON" run --format none "$LUA_DIR/make-target.lua" "$TMP/ex.dat"
# (burn-in-plan, which waits for a steady rate, is 70-library.t's)
for e in custom-workload app-mix qd-sweep markdown-report; do
	out=$(cd "$TMP" && "$IOMOON" run --quiet --format none "$ROOT/examples/$e.lua" "$TMP/ex.dat" 0.3 2>&1); rc=$?
	ran $rc "$out" "example $e runs"
done
# a sweep whose phase measured no I/O (1 us: no disk completes a read in
# it) has no knee: a latency of 0 is no figure under the bound
out=$(cd "$TMP" && "$IOMOON" run --quiet --format none "$ROOT/examples/qd-sweep.lua" "$TMP/ex.dat" 1us 2>&1)
like "$out" '^no knee: QD 1 measured no I/O' "qd-sweep: a phase without I/O is never the knee"
# find_max that finds nothing says why: a probe without I/O (sim, 1 s per
# I/O, 0.1 s probes) fails as such, and a bound even \`from\` breaks
cat >"$TMP/fm.lua" <<'EOF2'
local plan = require "iomoon.plan"
local function fm(lat, dur) return plan.find_max { phase = { engine = "sim", sim_latency = lat, qd = 4, bs = "4k", duration = dur }, bound = "5ms", from = 1000 } end
local r = fm("1s", "0.1s")
print(r.iops, r.probes[1].why, r.why)
r = fm("20ms", "0.3s")
print(r.iops, r.probes[1].why, r.why)
EOF2
out=$("$IOMOON" run --quiet --format none "$TMP/fm.lua" 2>&1)
is "$out" "nil	no I/O measured	even from = 1000 IOPS failed (no I/O measured): give the phase a longer duration
nil	latency over the bound	even from = 1000 IOPS failed (latency over the bound): try a lower from" "find_max that finds nothing says why"
# a stream that measured no I/O is marked in every format (its 0 ms is no figure)
cat >"$TMP/noio.lua" <<'EOF2'
local iomoon = require "iomoon"
iomoon.run { engine = "sim", duration = "0.2s", streams = { { name = "busy", bs = "4k" }, { name = "idle", bs = "4k", rate = { iops = 1 } } } }
EOF2
for f in table csv markdown json html; do
	"$IOMOON" run --quiet --format $f --output "$TMP/noio.$f" "$TMP/noio.lua" >/dev/null 2>&1
	ok $([ "$(grep -c 'no I/O measured: these figures are not measurements' "$TMP/noio.$f")" -ge 1 ]; echo $?) "a stream without I/O is marked ($f)"
done
like "$(cat "$TMP/report.md")" '\| RealLife-60%Rand-65%Read \| [0-9]+ \|' "the Markdown report example writes its table"
# ---- application models (issue 11): suites of streams ----
# Each runs end to end on a small file; every stream did I/O of the kind
# its model says; the table has a row per stream, then the phase's total.
for s in postgres lsm-store jetstress boot-storm; do
	F="$TMP/$s.dat"
	"$IOMOON" suite $s --target "$F" --size 16m --time 0.4 --ramp 0 --quiet --format json --output "$TMP/$s.json"
	ok $? "suite $s runs end to end"
	python3 - "$s" "$TMP/$s.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
assert len(d["phases"]) == 1, len(d["phases"])
p = d["phases"][0]
st = {s["name"]: s for s in p["streams"]}
want = {"postgres": ["data", "wal", "checkpoint"],
        "lsm-store": ["wal append", "tail", "point reads", "compaction"],
        "jetstress": ["database", "log"],
        "boot-storm": ["booting", "running"]}[name]
assert [s["name"] for s in p["streams"]] == want, [s["name"] for s in p["streams"]]
for s in p["streams"]:
    assert s["ios"] > 0, (s["name"], "did no I/O")
    assert s["errors"] == 0, (s["name"], s["errors"])
    assert s["read"]["ios"] + s["write"]["ios"] == s["ios"], s["name"]
assert p["ios"] == sum(s["ios"] for s in p["streams"]), "the phase is the sum of its streams"
def rd(s): return s["read"]["ios"] / s["ios"]
def size(s): return s["bytes"] / s["ios"]
def synced(s, call, every):
    y = s["sync"]
    assert y["call"] == call and y["every"] == every, y
    # a timed phase may close between a slot's last write and its sync
    n = s["write"]["ios"] // every
    assert n - 1 <= y["ios"] <= n, (s["write"]["ios"], y["ios"])
if name == "postgres":
    synced(st["wal"], "fdatasync", 1)
    assert st["wal"]["read"]["ios"] == 0 and size(st["wal"]) == 8192
    assert 0.55 <= rd(st["data"]) <= 0.85 and size(st["data"]) == 8192, rd(st["data"])
    assert st["checkpoint"]["read"]["ios"] == 0, "the checkpoint only writes"
    assert st["data"]["rate_asked_iops"] == 2000 and "rate_asked_iops" not in st["wal"]
elif name == "lsm-store":
    synced(st["wal append"], "fsync", 4)
    assert st["wal append"]["read"]["ios"] == 0 and size(st["wal append"]) == 16384
    assert rd(st["tail"]) == 1 and rd(st["point reads"]) == 1 and size(st["point reads"]) == 4096
    assert size(st["compaction"]) == 1 << 20
elif name == "jetstress":
    assert size(st["database"]) == 32768 and 0.4 <= rd(st["database"]) <= 0.8, rd(st["database"])
    assert st["log"]["read"]["ios"] == 0 and size(st["log"]) == 8192
    assert st["database"]["rate_asked_iops"] == 1000 and st["log"]["rate_asked_iops"] == 100
elif name == "boot-storm":
    assert st["booting"]["workers"] == 32, st["booting"]["workers"]
    assert 0.7 <= rd(st["booting"]) <= 0.95, rd(st["booting"])
    assert st["running"]["rate_asked_iops"] == 400
PY
	ok $? "suite $s: every stream did its kind of I/O (streams, sizes, read share, syncs)"
	out=$("$IOMOON" suite $s --target "$F" --time 0.2 --ramp 0 --quiet)
	rows=$(printf '%s\n' "$out" | sed '/^$/,$d' | grep -v '^engine \|^  ' | sed -n '2,$p' | cut -c1-30 | sed 's/ *$//' | tr '\n' ',')
	want=$(python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['phases'][0]; print(''.join(p['name'] + ' / ' + s['name'] + ',' for s in p['streams']) + p['name'] + ',')" "$TMP/$s.json")
	is "$rows" "$want" "suite $s: the table has a row per stream, then the phase's total"
done
# psync does one I/O at a time: a model keeps each stream's concurrency as
# workers x qd workers at QD 1 (the streams' own qd is not --qd's to change)
for s in postgres lsm-store jetstress boot-storm; do
	"$IOMOON" suite $s --target "$TMP/$s.dat" --time 0.4 --ramp 0 --quiet --engine psync --format json --output "$TMP/$s-psync.json"
	rc=$?
	# jetstress judges its latencies (a loaded disk can FAIL them, rightly:
	# exit 1); whatever the load, only a latency rule may fail, never errors
	[ $rc -eq 1 ] && [ $s = jetstress ] && python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verdict"]
assert v["result"] == "FAIL" and all(c["pass"] or "latency" in c["check"] for c in v["checks"])' "$TMP/$s-psync.json" 2>/dev/null && rc=0
	ok $rc "suite $s --engine psync runs"
	python3 - "$TMP/$s.json" "$TMP/$s-psync.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["phases"][0] for f in sys.argv[1:3])
assert b["engine"] == "psync", b["engine"]
for x, y in zip(a["streams"], b["streams"]):
    assert y["qd"] == 1 and y["workers"] == x["workers"] * x["qd"], (y["name"], y["workers"], y["qd"])
    assert y["ios"] > 0, (y["name"], "did no I/O")
PY
	ok $? "suite $s --engine psync: every stream at QD 1 with workers x qd workers, and all did I/O"
done
like "$("$IOMOON" list)" '
  postgres +PostgreSQL OLTP' "iomoon list shows the application models"
for s in boot-storm jetstress lsm-store postgres; do
	like "$("$IOMOON" list | grep "^  $s ")" "^  $s +[^ (]" "iomoon list: $s loads and has a description"
done

# Syncs are counted exactly when a stream ends by its quota: the postgres
# WAL (fdatasync = 1) and the lsm-store log (fsync every 4), at QD 1, each
# alone in its phase (the duration only a bound: the quota ends it)
out=$("$IOMOON" run --format none "$LUA_DIR/sync-quota.lua" "$TMP")
is "$out" "$(printf '300\t300\tfdatasync\n200\t50\tfsync')" "a WAL stream's quota: 300 writes, 300 fdatasyncs; 200 appends with fsync = 4: 50 fsyncs"

# examples/postgres.lua: data and WAL p99 and the fdatasync p99 side by side
rm -f "$TMP/ex.dat.wal"
out=$(cd "$TMP" && "$IOMOON" run --quiet --format none "$ROOT/examples/postgres.lua" "$TMP/ex.dat" 0.4 2>&1)
ok $? "example postgres runs"
like "$out" '^ +data 8k r/w +WAL write +fdatasync
p99 +[0-9]+\.[0-9]{3} ms +[0-9]+\.[0-9]{3} ms +[0-9]+\.[0-9]{3} ms
' "example postgres: the three p99s side by side, in ms"
is "$(stat -c %s "$TMP/ex.dat.wal" 2>&1)" 67108864 "example postgres: the WAL on a file of its own (64 MiB)"
read -r _ dn wn sn <<<"$(printf '%s\n' "$out" | grep '^count ')"
[ "$dn" -gt 0 ] && [ "$wn" -gt 0 ] && [ $((wn - sn)) -ge 0 ] && [ $((wn - sn)) -le 1 ]
ok $? "example postgres: the data stream did I/O, and one fdatasync per WAL write ($dn data, $wn writes, $sn syncs)"
is "$(printf '%s\n' "$out" | grep -cE '^ +[1-8] +[0-9]+ +([0-9]+ +[0-9.]+ ms|[0-9]+ +-|- +-)$')" 8 "example postgres: the day's 8 segments"
like "$out" '
checkpoint: [1-9][0-9]* page writes in bursts \(p99 [0-9.]+ ms\), [0-9]+ fsyncs' "example postgres: the checkpoint's bursts wrote"
# on a device, the WAL is not made beside it in /dev: the example asks for it
truncate -s 64m "$TMP/dev.img"
if L=$(losetup -f --show "$TMP/dev.img" 2>/dev/null); then
	LOOPS="$LOOPS $L"
	err=$("$IOMOON" run --quiet --format none "$ROOT/examples/postgres.lua" "$L" 0.3 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] && [ ! -e "$L.wal" ]; ok $? "example postgres on a device without a WAL path: exit 2, no $L.wal made"
	like "$err" "$L is a device: give the WAL's file or device too" "example postgres: says what to give"
else
	skip "no loop device"; skip "no loop device"
fi
done_testing
