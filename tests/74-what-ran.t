#!/bin/bash
# What a report says ran is what ran: a row's name after the command
# line's overrides (suite --qd/--workers/--engine, the .icf's QD cycling),
# compare saying when two runs' workloads differ (every format), rerun
# with suite's overrides and what it changed, and the test area of a
# --size smaller than an existing file (the offsets under strace as
# witness). On the sim engine and small files: nothing here is timed.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
SIM=(--engine sim --time 0.1 --ramp 0 --quiet)

# ---- names: each says the queue depth it ran at, or the override ----
# every phase: a name stating "QD n" states its qd; else the overrides that
# changed it are shown after the name (tests/check_names.py)
check_names() { python3 "$T/check_names.py" "$@"; }
for s in quick io-analyzer openperformancetest iometer-matrix jetstress "$T/iometer/cycling.icf"; do
	"$IOMOON" suite "$s" "${SIM[@]}" --qd 3 --workers 2 --format json --output "n.json"
	ok $? "suite $(basename "$s") --qd 3 --workers 2 runs"
	is "$(check_names n.json 3 2)" "ok" "suite $(basename "$s") --qd 3 --workers 2: every name says QD 3 or shows --qd 3, and shows --workers 2"
done
"$IOMOON" suite quick "${SIM[@]}" --format json --output q.json
is "$(python3 -c 'import json,sys; print("|".join(p["name"] for p in json.load(open(sys.argv[1]))["phases"]))' q.json)" \
	"4K; 100% Read; 100% random; QD 1|4K; 100% Read; 100% random; QD 32|4K; 0% Read; 100% random; QD 32|1M; 100% Read; 0% random; QD 8|1M; 0% Read; 0% random; QD 8" \
	"suite quick without overrides: the suite's own names"
"$IOMOON" suite quick "${SIM[@]}" --qd 32 --format json --output q32.json
is "$(check_names q32.json 32 1)" "ok" "suite quick --qd 32: QD 1 and QD 8 become QD 32; QD 32 stays"
for f in table csv markdown html; do
	out=$("$IOMOON" suite quick "${SIM[@]}" --qd 4 --format $f)
	is "$(printf '%s' "$out" | grep -o 'random; QD [0-9]*' | sort -u)" "random; QD 4" \
		"suite quick --qd 4 --format $f: the rows named QD 4, none QD 1, 32 or 8"
done
out=$("$IOMOON" suite io-analyzer "${SIM[@]}" --qd 4 --workers 2)
like "$out" $'\nMax Write IOPS \\(--qd 4, --workers 2\\) +[0-9]' "table: a name lengthened by the overrides is not cut"
out=$("$IOMOON" suite "$T/iometer/cycling.icf" "${SIM[@]}" --qd 4)
is "$(printf '%s\n' "$out" | grep -c '^File Server (QD 4) ')" 4 ".icf cycling QD 1 to 8 under --qd 4: four rows named (QD 4)"

# ---- compare: two runs whose workloads differ say so, in every format ----
"$IOMOON" suite quick "${SIM[@]}" --format json --output a.json
"$IOMOON" suite quick "${SIM[@]}" --qd 4 --format json --output b.json
WARN='4K; 100% Read; 100% random; QD 1=4K; 100% Read; 100% random; QD 4: not a like-for-like comparison: the workloads differ in qd \(1 in A, 4 in B\)'
like "$("$IOMOON" compare a.json b.json --pair-by position)" "warning: $WARN" "compare table: the pair's qd differs, not like for like"
like "$("$IOMOON" compare a.json b.json --pair-by position --format csv 2>/dev/null)" "\"\",\"warning\",\"$WARN" "compare csv: a warning row"
like "$("$IOMOON" compare a.json b.json --pair-by position --format markdown 2>/dev/null)" "\\*\\*warning: ${WARN//;/\\;}" "compare markdown: the warning in bold"
like "$("$IOMOON" compare a.json b.json --pair-by position --format html 2>/dev/null)" "<p class=\"warn\">warning: $WARN" "compare html: the warning"
out=$("$IOMOON" compare a.json b.json --pair-by position --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["phases"][0]["definition_differs"], d["phases"][3]["definition_differs"])')
is "$out" "['qd (1 in A, 4 in B)'] ['qd (8 in A, 4 in B)']" "compare json: definition_differs per pair"
"$IOMOON" suite quick "${SIM[@]}" --qd 4 --buffered --engine null --format json --output c.json
like "$("$IOMOON" compare b.json c.json 2>/dev/null)" "QD 4: not a like-for-like comparison: the workloads differ in engine \\(sim in A, null in B\\)" \
	"compare: another engine is another workload"
"$IOMOON" suite io-analyzer "${SIM[@]}" --format json --output ia.json
"$IOMOON" suite io-analyzer "${SIM[@]}" --qd 4 --format json --output ib.json
like "$("$IOMOON" compare ia.json ib.json)" "warning: Exchange 2007=Exchange 2007 \\(--qd 4\\): not a like-for-like comparison: the workloads differ in qd \\(16 in A, 4 in B\\)" \
	"compare by name: NAME pairs with NAME (--qd 4), and the warning says the qd differs"
out=$("$IOMOON" compare a.json a.json)
ok $(printf '%s' "$out" | grep -c 'like-for-like' | grep -qx 0; echo $?) "compare a run with itself: no such warning"

# doc/cli.md: --qd and --workers set each stream's own too (jetstress's
# log at QD 1 and its database at QD 16 both run at QD 4)
"$IOMOON" suite jetstress "${SIM[@]}" --qd 4 --workers 2 --format json --output js4.json
is "$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(*[(s["name"], s["qd"], s["workers"]) for s in p["streams"]])' js4.json)" \
	"('database', 4, 2) ('log', 4, 2)" "suite jetstress --qd 4 --workers 2: every stream ran at QD 4 with 2 workers"

# ---- rerun: suite's overrides, and what they changed ----
err=$("$IOMOON" rerun a.json --time 0.1 --qd 4 --format json --output r.json 2>&1)
is $? 0 "rerun --time --qd: exit 0"
is "$err" "iomoon rerun: as a.json ran, but --qd: qd 1 -> 4 (phase 1), qd 32 -> 4 (phases 2, 3), qd 8 -> 4 (phases 4, 5)" \
	"rerun says what it changed, per phase (--time as it was: not said)"
is "$(check_names r.json 4 1)" "ok" "rerun --qd 4: every phase ran at QD 4 and is named so"
err=$("$IOMOON" rerun a.json --time 0.2 --ios 10 --workers 2 --format json --output r2.json 2>&1)
is $? 0 "rerun --time 0.2 --ios 10 --workers 2: exit 0"
like "$err" "--time: duration 0.1 -> 0.2 \\(phases 1, 2, 3, 4, 5\\); --workers: workers 1 -> 2 \\(phases 1, 2, 3, 4, 5\\); --ios: ios none -> 10 \\(phases 1, 2, 3, 4, 5\\)$" "rerun: --time, --workers and --ios said"
is "$(python3 -c 'import json,sys; print(*sorted({(p["definition"]["duration"], p["workers"], p["definition"]["ios"]) for p in json.load(open(sys.argv[1]))["phases"]}))' r2.json)" \
	"('0.2', 2, 10)" "rerun: the definitions ran are the overridden ones"
# a saved name already shows an override: the rerun's replaces it, once
"$IOMOON" rerun r2.json --time 0.1 --workers 3 --qd 2 --format json --output r4.json --quiet
is "$(python3 -c 'import json,sys; print(*sorted({p["name"] for p in json.load(open(sys.argv[1]))["phases"]}), sep="|")' r4.json)" \
	"1M; 0% Read; 0% random; QD 2 (--workers 3)|1M; 100% Read; 0% random; QD 2 (--workers 3)|4K; 0% Read; 100% random; QD 2 (--workers 3)|4K; 100% Read; 100% random; QD 2 (--workers 3)" \
	"rerun --workers 3 of a run named (--workers 2): (--workers 3), not (--workers 2) (--workers 3)"
"$IOMOON" suite io-analyzer "${SIM[@]}" --qd 4 --workers 2 --format json --output ia2.json
"$IOMOON" rerun ia2.json --time 0.1 --workers 1 --qd 8 --format json --output ia3.json --quiet
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phases"][2]["name"])' ia3.json)" \
	"Exchange 2007 (--qd 8, --workers 1)" "rerun --workers 1 --qd 8 of 'Exchange 2007 (--qd 4, --workers 2)': each override in its place"
err=$("$IOMOON" rerun a.json --qd 0 --quiet 2>&1)
is $? 2 "rerun --qd 0: exit 2"
like "$err" "^iomoon rerun: --qd: 0 is out of range" "rerun --qd 0: names the option"
"$IOMOON" rerun a.json --time x --format json --output r3.json --quiet 2>/dev/null
is "$?$(ls r3.json 2>/dev/null)" 2 "rerun --time x: exit 2, nothing written"

# ---- the test area: a part of an existing file ----
F="$TMP/area.dat"
"$IOMOON" quick --target "$F" --size 32m --read 0 --random 0 --bs 1m --qd 1 --time 5 --ios 64 --quiet >/dev/null
is "$(stat -c %s "$F")" 33554432 "a 32 MiB file"
if command -v strace >/dev/null; then
	strace -f -qq -e trace=pread64 -o trace.txt "$IOMOON" quick --target "$F" --size 4m --engine psync --qd 1 --bs 4k \
		--buffered --time 0.3 --format json --output area.json
	is "$(awk -F', ' '/pread64/ { split($4, a, ")"); o = a[1] + 0; if (o > m) m = o; n++ } END { print (n > 10 && m + 4096 <= 4194304) ? "in" : "out:" n ":" m }' trace.txt)" \
		"in" "strace: every pread of --size 4m on the 32 MiB file lies in its first 4 MiB"
else
	"$IOMOON" quick --target "$F" --size 4m --qd 1 --bs 4k --time 0.3 --format json --output area.json
	skip "no strace"
fi
is "$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(p["area_bytes"], p["area_offset_bytes"])' area.json)" \
	"4194304 0" "result.area_bytes: 4 MiB, from offset 0"
like "$("$IOMOON" quick --target "$F" --size 4m --qd 1 --bs 4k --time 0.1 --quiet | head -1)" "test area .*area\\.dat: 4 MiB of a 32 MiB file" "the table's setup line: 4 MiB of a 32 MiB file"
like "$("$IOMOON" report area.json | head -1)" "test area .*area\\.dat: 4 MiB of a 32 MiB file" "iomoon report of the saved JSON: the same"
like "$("$IOMOON" report area.json --format html)" "<td>Test area</td><td>[^<]*area\\.dat: 4 MiB of a 32 MiB file" "html: the machine table's test area"
like "$("$IOMOON" quick --target "$F" --qd 1 --bs 4k --time 0.1 --quiet | head -1)" "area\\.dat: 32 MiB file" "the whole file: its size alone, as before"
done_testing
