#!/bin/bash
# The SNIA PTS suites (doc/suites.md, "SNIA PTS"): the stopping rule on
# series of our own (tests/lua/74-snia-pts/stop.lua), then a short IOPS
# test on a file checked from its JSON's meta.pts alone by a checker of
# its own (tests/pts/check_pts.py: purge, 2 x the area preconditioned,
# rounds of the 56 cells in the specification's order, stopped where the
# rule says), its window table in every format, the other three plans
# briefly, a device (a loop device: --allow-write, a filesystem refused,
# the purge by BLKDISCARD), and bad input refused before anything exists.
# The HTML pages in a browser: 76-html.t.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
AREA=$((16 << 20))
# cells of at most 5 s, each ended after 16 I/Os (--ios): short, and no cell
# of a loaded machine ends with no I/O completed (a failed phase)
Q=(--round 5s --ios 16 --max-rounds 5 --workers 1 --qd 4)

lua_tap "$LUA_DIR/stop.lua" "$TMP"

# ---- the IOPS test on a file ----
start=$(date +%s%N)
"$IOMOON" suite snia-pts-iops --target "$TMP/iops.dat" --size 16M "${Q[@]}" --format json --output iops.json 2>iops.err
is $? 0 "snia-pts-iops on a file: exit 0"
echo "# snia-pts-iops --size 16M ${Q[*]}: $(( ($(date +%s%N) - start) / 1000000 )) ms"
like "$(cat iops.err)" "^snia-pts-iops: iops: purge \(discard\) 16 MiB; precondition: write 32 MiB \(2 x the 16 MiB area, 128 KiB sequential\); then 5 rounds of 56 cells x 5 s \(23.3 min of measured time at most: each cell also ends after 16 I/Os\)" "says upfront what it will write and for how long"
grep -Eq "^snia-pts-iops: iops: precondition pass 1 of 2 wrote 16 MiB at [0-9]+ MiB/s; left of this test: about [0-9.]+ (s|min|h) more preconditioning, then 23\.3 min of rounds \([0-9.]+ (s|min) in all at most: each cell also ends after 16 I/Os\)" iops.err
ok $? "after the first pass, what is left of the whole test (the other pass at the measured rate, then the rounds), in MiB/s"
grep -Eq "^snia-pts-iops: iops: (steady state|no steady state) after [0-9]+ rounds \(measurement window: rounds [0-9]+ to [0-9]+\)" iops.err
ok $? "says whether it reached steady state, and the window"
c=$(python3 "$T/pts/check_pts.py" iops.json $AREA 5)
get() { printf '%s\n' "$c" | sed -n "s/^$1=//p"; }
is "$(get purge)" 1 "checker: the first phase is the purge"
is "$(get precondition_bytes)" $((2 * AREA)) "checker: the preconditioning wrote twice the area (from the results' write.bytes)"
is "$(get cells_ok)" 1 "checker: every round is the 56 cells, mix outer and block size inner, in the specification's order"
is "$(get stop_ok)" 1 "checker: the run stopped where the rule applied to meta.pts says (steady in round $(get steady_round); 0: never)"
is "$(get claim_ok)" 1 "checker: the document's pts summary says the same (steady, rounds, window)"
is "$(get area_ok)" 1 "checker: the plan's test area is 16 MiB"
python3 - iops.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ph = d["phases"]
keys = all(set(("test", "round", "bs", "read", "precondition")) <= set(p["meta"]["pts"]) for p in ph)
plan = ph[0]["meta"]["pts"]["plan"]
deps = " | ".join(plan["departures"])
assert keys, "a phase without meta.pts's fields"
assert "--round 5 s per cell (the specification: 60 s)" in deps and "--ios 16: each cell also ends after 16 I/Os" in deps and "--max-rounds 5 (the specification: 25)" in deps, deps
assert "--workers 1 (PTS-E: 4 threads)" in deps and "purge of a file: its holes punched" in deps, deps
assert ph[0]["trim"]["bytes"] == 16 << 20, ph[0]["trim"]
assert len(d["pts"][0]["window_table"]) == 56
PY
ok $? "every phase has meta.pts {test, round, bs, read, precondition}; the departures are listed; the purge discarded the area; the window table has 56 cells"

# the window table in every format, from the saved JSON
# who set the figures: on a file, the device, or the host when a phase's
# own witnesses say others held the CPU; never iomoon (a busy machine made
# 338 of 339 rows "the host's CPU, not the device, set these figures")
# every verdict with its witness: host where a worker waited for a CPU
# (10 % of its time), tool where one was on a CPU or waiting for one 85 %
# of its time (a phase of 16 I/Os in half a millisecond can be iomoon's);
# never tool for a file in memory on a device, nor rate without a rate
who_set() { # FILE LABEL
	python3 -c '
import collections, json, sys
ph = json.load(open(sys.argv[1]))["phases"]
def witnessed(p):
    c, b = p["cpu"], p["bottleneck"]
    return b == "device" or (b == "host" and c.get("wait_pct", 0) >= 10) or \
        (b == "tool" and c.get("worker_max_pct", 0) + c.get("wait_pct", -100) >= 85)
bad = [(p["name"], p["bottleneck"], p["cpu"]) for p in ph if not witnessed(p)]
print(bad[:3] or "none", "#", dict(collections.Counter(p["bottleneck"] for p in ph)))' "$1" >out
	is "$(cut -d'#' -f1 out)" "none " "$2: every phase's verdict has its witness ($(cut -d'#' -f2 out))"
}
who_set iops.json "iops on a file"
out=$("$IOMOON" report iops.json)
like "$out" "SNIA PTS IOPS \(PTS-E, threads 1 x QD 4\): steady state" "table: the PTS verdict"
like "$out" "measurement window \(IOPS, mean of rounds [0-9]+ to [0-9]+\):
  Block size     100/0      95/5     65/35     50/50     35/65      5/95     0/100
  1024 KiB " "table: the window table, mixes across, block sizes down"
"$IOMOON" report iops.json --format csv --output iops.csv
python3 - iops.csv <<'PY'
import csv, sys
text = open(sys.argv[1], newline="").read()
main, window = text.split("\r\n\r\n")
rows = list(csv.reader(window.splitlines()))
assert rows[0][:3] == ["PTS Test", "Block Size", "Read %"], rows[0]
assert len(rows) == 57 and rows[1][:3] == ["iops", "1048576", "100"] and rows[-1][:3] == ["iops", "512", "0"], rows[-1]
PY
ok $? "csv: the window table after an empty line, 56 rows"
like "$("$IOMOON" report iops.json --format markdown)" "### SNIA PTS IOPS" "markdown: a PTS section"
"$IOMOON" report iops.json --format html --output iops.html
is "$(grep -o '<svg class="pts-chart" id="pts-iops-[a-z0-9]*"' iops.html | sed 's/.*id=//' | tr '\n' ' ')" '"pts-iops-convergence" "pts-iops-window" "pts-iops-2d" ' "html: the convergence, window and 2D charts"

# ---- the other plans, briefly ----
for s in throughput latency wsat; do
	q=("${Q[@]}"); [ $s = latency ] && q=(--round 5s --ios 16 --max-rounds 5) # its 1 x QD 1 is fixed
	"$IOMOON" suite snia-pts-$s --target "$TMP/$s.dat" --size 8M "${q[@]}" --format json --output $s.json 2>$s.err
	ok $? "snia-pts-$s runs" || sed 's/^/# /' $s.err
done
python3 - <<'PY'
import json
def tests(f):
    d = json.load(open(f))
    return [(t["test"], t["rounds"], len(t["window_table"])) for t in d["pts"]], d["phases"]
t, ph = tests("throughput.json")
assert [x[0] for x in t] == ["throughput-1m", "throughput-128k"] and all(x[2] == 2 for x in t), t
assert [p["meta"]["pts"]["bs"] for p in ph if p["meta"]["pts"]["round"] == 1] == [1048576] * 2 + [131072] * 2
t, ph = tests("latency.json")
cells = [p for p in ph if p["meta"]["pts"]["round"] == 1]
assert [(p["meta"]["pts"]["read"], p["meta"]["pts"]["bs"]) for p in cells] == [(r, b) for r in (100, 65, 0) for b in (512, 4096, 8192)]
assert all(p["qd"] == 1 and p["workers"] == 1 for p in cells), "latency: QD 1, one thread"
t, ph = tests("wsat.json")
assert not any(p["meta"]["pts"]["precondition"] for p in ph) and ph[0]["meta"]["pts"].get("purge"), "wsat: purge, no preconditioning"
PY
ok $? "throughput: 1024 then 128 KiB, each its own test; latency: 9 cells at QD 1 x 1 thread; wsat: purge, no preconditioning"
"$IOMOON" suite snia-pts-throughput --profile client --target "$TMP/tc.dat" --size 8M "${Q[@]}" --format json --output tc.json 2>/dev/null
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(*[t["test"] for t in d["pts"]], d["phases"][0]["meta"]["pts"]["plan"]["profile"])' tc.json)" \
	"throughput-1m client" "PTS-C's throughput test is 1024 KiB only (the specification's client profile)"
like "$("$IOMOON" report latency.json)" "measurement window \(maximum response time ms, rounds" "latency: the maximum response times beside the means"

# ---- a device ----
if L=$(losetup -f --show "$(truncate -s 16m "$TMP/blank.img"; echo "$TMP/blank.img")" 2>/dev/null); then
	LOOPS="$L"
	err=$("$IOMOON" suite snia-pts-wsat --target "$L" "${Q[@]}" --format none 2>&1); is $? 2 "a device without --allow-write: exit 2"
	like "$err" "writing to a block device needs allow_write=true \(--allow-write\)" "names the flag"
	"$IOMOON" suite snia-pts-wsat --target "$L" "${Q[@]}" --allow-write --format json --output dev.json 2>/dev/null
	ok $? "with --allow-write: runs"
	# a device's node is on devtmpfs: never taken for a file in memory (the purge said "0.0 of 16 I/Os in flight")
	who_set dev.json "wsat on a loop device, its purge too"
	like "$("$IOMOON" report dev.json)" "purge by BLKDISCARD, not a secure erase" "the purge was BLKDISCARD, and the report says it is not a secure erase"
	is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phases"][0]["meta"]["pts"]["plan"]["purge"])' dev.json)" \
		"BLKDISCARD of the whole area ($L does not do secure discard (BLKSECDISCARD: not supported by the device))" \
		"the plan asked for secure discard first, and says why it was BLKDISCARD"
	mkfs.ext4 -q -F "$L" >/dev/null 2>&1
	sum=$(md5sum <"$L")
	err=$("$IOMOON" suite snia-pts-iops --target "$L" "${Q[@]}" --allow-write --format none 2>&1); is $? 2 "an ext4 device: exit 2 even with --allow-write"
	is "$(md5sum <"$L")" "$sum" "the filesystem is untouched (no purge, no preconditioning)"
else
	for i in 1 2 3 4 5 6 7 8; do skip "no loop device here"; done
fi

# ---- bad input: exit 2, nothing created ----
bad() { # WHAT PATTERN ARGS...
	local what=$1 pat=$2; shift 2
	err=$("$IOMOON" suite snia-pts-iops --target "$TMP/bad.dat" --size 16M "$@" --format none 2>&1)
	is $? 2 "$what: exit 2"
	like "$err" "$pat" "$what: says so"
	[ ! -e "$TMP/bad.dat" ]; ok $? "$what: nothing created"
}
bad "--round under 10 ms" "--round: 5ms is shorter than the shortest interval \(10 ms\)" --round 5ms
bad "--round shorter than --interval" "--round: 0.02s is shorter than the interval \(0.05 s\)" --round 0.02s --interval 0.05s
bad "--max-rounds 4" "--max-rounds: 4 is under the 5-round measurement window \(give 5 or more\)" --max-rounds 4
bad "an unknown option" "unknown option --roud \(did you mean --round\?\)" --roud 1s
bad "an unknown profile" "--profile: 'clent' is not a profile .*did you mean client" --profile clent
bad "--time" "--time: the snia-pts suites time their cells with --round" --time 1
bad "--ramp" "--ramp: the snia-pts suites measure every cell whole" --ramp 1s
bad "--interval longer than the default round" "--interval: 2m is longer than the round \(60 s\)" --interval 2m
err=$("$IOMOON" suite snia-pts-latency --target "$TMP/bad.dat" --size 16M --qd 4 --format none 2>&1)
is $? 2 "latency with --qd: exit 2"
like "$err" "--qd: the latency test runs 1 thread at QD 1, as the specification fixes" "latency with --qd: says the specification fixes it"
printf 'x' >"$TMP/theirs.dat"; truncate -s 16m "$TMP/theirs.dat"; sum=$(md5sum <"$TMP/theirs.dat")
"$IOMOON" suite snia-pts-iops --target "$TMP/theirs.dat" "${Q[@]}" --format none 2>/dev/null; is $? 2 "a file iomoon did not create, without --allow-write: exit 2"
is "$(md5sum <"$TMP/theirs.dat")" "$sum" "and it is untouched"
err=$("$IOMOON" suite quick --target "$TMP/q.dat" --round 1s 2>&1); is $? 2 "a suite without PTS options refuses --round"
done_testing
