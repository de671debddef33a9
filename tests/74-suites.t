#!/bin/bash
# Every ready suite end to end in every format, a burn-in that finds a
# corrupted block, and the progress line on a terminal. (The library's
# timed checks: 70-library.t; the application models: 69-examples.t.)
# Phases end after 64 I/Os (--ios) or 5 s: a loaded disk may hold one
# 4 KiB I/O for over 0.2 s, and a phase that completes no I/O is failed.
. "$(dirname "$0")/lib.sh"

for s in quick iometer-matrix openperformancetest io-analyzer oltp burn-in data-reduction; do
	F="$TMP/$s.dat"
	S=(suite $s --target "$F" --size 16m --time 5 --ios 64 --ramp 0 --quiet)
	"$IOMOON" "${S[@]}" --format csv --output "$TMP/$s.csv" >"$TMP/$s.table" 2>"$TMP/$s.err"
	ok $? "suite $s runs end to end" || cat "$TMP/$s.err" "$TMP/$s.csv" | grep -iE "fail|error|iomoon" | sed 's/^/#   /'
	want=$("$IOMOON" run --format none "$LUA_DIR/suite-phases.lua" $s)
	n=$(python3 -c "import csv,sys; r=list(csv.reader(open(sys.argv[1]))); r=r[:r.index([])] if [] in r else r; assert r[0][:3]==['Target Type','Target Name','Access Specification Name']; print(len(r)-1)" "$TMP/$s.csv")
	is "$n" "$want" "suite $s: python reads $want CSV rows under IOMeter's header"
done
for f in table json; do
	out=$("$IOMOON" suite oltp --target "$TMP/oltp.dat" --time 5 --ios 64 --quiet --format $f); ok $? "suite oltp --format $f"
	case $f in
	table) is "$(printf '%s\n' "$out" | grep -c .)" 4 "table: how it ran, a header and two rows" ;;
	json) is "$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["phases"]), sum(p["errors"] for p in d["phases"]))')" "2 0" "json: two phases, no errors" ;;
	esac
done
out=$("$IOMOON" suite io-analyzer --target "$TMP/io-analyzer.dat" --time 5 --ios 64 --quiet --format analyzer)
like "$out" '^AccessSpec=0\.5k_100%Read_0%Random
IOps=[0-9.]+
ReadIOps=[0-9.]+
WriteIOps=0\.00
MBps=' "io-analyzer: the Analyzer's raw block"
like "$out" 'AccessSpec=8k_55%Read_80%Random' "io-analyzer: Exchange 2007's access spec"
out=$("$IOMOON" suite openperformancetest --target "$TMP/openperformancetest.dat" --time 5 --ios 64 --quiet --format markdown)
like "$out" '\| RealLife-60%Rand-65%Read \| [0-9]+ \|' "markdown format"

# a corrupted block fails the burn-in
F="$TMP/burn-in.dat"
"$IOMOON" run --format none "$LUA_DIR/write-offsets.lua" "$F"
printf 'BROKEN' | dd of="$F" bs=1 seek=$((5 << 20)) conv=notrunc status=none
out=$("$IOMOON" suite "$LUA_DIR/verify-suite.lua" --target "$F" --quiet 2>&1); is $? 1 "a suite whose verify finds corruption: exit 1"
like "$out" 'errors? \(read of 1048576 bytes at offset 5242880: Invalid or incomplete multibyte or wide character\)|errors? \(read of 1048576 bytes at offset 5242880' "names the corrupted block's offset"


# the verdict of a suite that models a pass/fail tool, in every format,
# and exit 1 on FAIL: jetstress on a simulated device whose every I/O takes
# 25 ms (over Jetstress's 20 ms for database reads, whatever the load),
# then at 100 us; burn-in whole, and without its final verify
wrap() { # wrap NAME FILE LUA: the ready suite NAME with LUA applied to its list of phases
	printf 'local s = dofile([[%s]])\nlocal ph = s.phases\ns.phases = function(o) local list = ph(o); %s; return list end\nreturn s\n' \
		"$ROOT/bench-suites/$1.lua" "$3" >"$2"
}
wrap jetstress "$TMP/js-slow.lua" 'for _, p in ipairs(list) do p.sim_latency = "25ms" end'
for f in table csv json markdown html analyzer; do
	"$IOMOON" suite "$TMP/js-slow.lua" --engine sim --time 1 --quiet --format $f >"$TMP/js.$f" 2>"$TMP/js.err"
	is $? 1 "jetstress over 20 ms: FAIL is exit status 1 ($f)"
done
like "$(cat "$TMP/js.table")" 'verdict: FAIL \(jetstress: Microsoft Jetstress.s thresholds\)
  FAIL database read latency, average +[0-9]+\.[0-9]+ ms over [0-9]+ reads \(rule: < 20 ms\)' "table: the verdict and the rule"
like "$(cat "$TMP/js.csv")" '"FAIL","jetstress","database read latency, average","[0-9.]+ ms over [0-9]+ reads","< 20 ms","FAIL"' "csv: the verdict's rows"
is "$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verdict"]; print(v["result"], [c["pass"] for c in v["checks"]][0], v["checks"][1]["limit"])' "$TMP/js.json")" \
	"FAIL False < 10 ms" "json: verdict.result, each check with its limit"
like "$(cat "$TMP/js.markdown")" '\*\*verdict: FAIL .*

\| Check \| Value \| Rule \| Result \|
\|---\|---\|---\|---\|
\| database read latency, average \| [0-9.]+ ms over [0-9]+ reads \| \\< 20 ms \| FAIL \|' "markdown: the verdict's table"
like "$(cat "$TMP/js.html")" '<p id="verdict" class="mark"><b>FAIL</b>' "html: the verdict"
is "$(grep -A2 '^Verdict=' "$TMP/js.analyzer" | sed 's/[0-9][0-9.]*/N/g')" "Verdict=FAIL
VerdictRule=jetstress: Microsoft Jetstress's thresholds
Check=FAIL database read latency, average: N ms over N reads (rule: < N ms)" "analyzer: Verdict=, the rule, a Check= per check"
is "$(awk '/^AccessSpec=/ { a = NR } /^Verdict=/ { v = NR; b = prev } { prev = $0 } END { print (v > a && b == "") ? "after" : "not after" }' "$TMP/js.analyzer")" \
	"after" "analyzer: the verdict's block after the phases', a blank line between"
is "$("$IOMOON" report "$TMP/js.json" | grep -c '^  FAIL')" 2 "a saved run gives the same verdict"
out=$("$IOMOON" suite jetstress --engine sim --time 1 --quiet 2>"$TMP/js100.err"); rc=$?
is $rc 0 "jetstress at 100 us: exit 0" || { printf '%s\n' "$out" | sed 's/^/#   /'; sed 's/^/#   stderr: /' "$TMP/js100.err"; }
like "$out" 'verdict: PASS .*
  pass database read latency, average +[0-9]+\.[0-9]+ ms .*
  pass log write latency, average +[0-9]+\.[0-9]+ ms .*
  pass I/O errors +0 ' "jetstress at 100 us: PASS, each rule held"
F="$TMP/bi.dat"
out=$("$IOMOON" suite burn-in --target "$F" --size 8m --time 1 --ios 64 --quiet); is $? 0 "burn-in: exit 0"
like "$out" 'verdict: PASS \(burn-in: .*
  pass I/O errors +0 .*
  pass final verify +2048 units checked of 2048, 0 errors' "burn-in: PASS, its final verify checked every unit"
wrap burn-in "$TMP/bi-short.lua" 'list[#list] = nil'
out=$("$IOMOON" suite "$TMP/bi-short.lua" --target "$F" --size 8m --time 1 --ios 64 --quiet --format csv)
is $? 1 "burn-in without its final verify: exit 1"
like "$out" '"FAIL","burn-in","final verify","did not run' "burn-in without its final verify: FAIL says why"

# the progress line, on a terminal
if command -v script >/dev/null; then
	out=$(script -qec "$IOMOON suite quick --target $TMP/quick.dat --time 0.6" /dev/null | tr '\r' '\n')
	like "$out" '\[1/5 4K; 100% Read; 100% random; QD 1\] [0-9.]+/0\.6 s +[0-9]+ IOPS +[0-9.]+ MiB/s +\[eta [0-9]+ s\]' "a progress line on a terminal, with the suite's ETA"
	out=$("$IOMOON" suite quick --target "$TMP/quick.dat" --time 0.6 2>&1 >/dev/null)
	is "$out" "" "no progress line when stderr is not a terminal"
else
	skip "no script(1)"; skip "no script(1)"
fi
done_testing
