#!/bin/bash
# IOMeter brought along (doc/import.md, "IOMeter"): .icf files run as suites
# (access specs, cycling, workers, targets), what iomoon does not do named
# in one error or skipped, `iomoon convert` to Lua and back, and results.csv
# read by report and compare.
. "$(dirname "$0")/lib.sh"
D="$T/iometer"
lua_tap "$D/check.lua" "$D" "$TMP"
cd "$TMP" || exit 1

# ---- the seed's OpenPerformanceTest.icf on a file: four rows named as IOMeter names them ----
out=$("$IOMOON" suite "$D/openperformancetest.icf" --target "$TMP/opt.dat" --size 16m --time 0.2 --quiet 2>&1)
rc=$?
ran "$rc" "$out" "iomoon suite openperformancetest.icf runs (exit 0)"
rows=$(printf '%s\n' "$out" | grep -v '^engine ' | grep -v '^  data: ' | sed 1d | cut -c1-26 | sed 's/ *$//' | tr '\n' '|')
is "$rows" "Max Throughput-100%Read|RealLife-60%Rand-65%Read|Max Throughput-50%Read|Random-8k-70%Read|" \
	"the rows are the access specs' names, in the file's order"
is "$(printf '%s\n' "$out" | grep -c '^  data: repeat ')" 3 \
	"the three rows that write carry the file's data pattern (0: repeating bytes), the read-only one none"
is "$(stat -c %s "$TMP/opt.dat")" 16777216 "the target was created at --size (16 MiB)"

# ---- several workers and targets: --target lists one path per disk target ----
"$IOMOON" suite "$D/workers.icf" --target "$TMP/w1.dat,$TMP/w2.dat,$TMP/w3.dat" --size 8m --time 0.2 --quiet \
	--format json --output "$TMP/w.json"
ok $? "workers.icf runs on three targets"
python3 - "$TMP/w.json" "$TMP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = sys.argv[2]
ph = d["phases"]
assert [p["name"] for p in ph] == ["4K; 100% Read; 0% random (2 disks)", "4K; 100% Read; 0% random (3 disks)",
                                   "64K; 0% Read; 100% random"], [p["name"] for p in ph]
s = ph[1]["definition"]["streams"]
assert [x["name"] for x in s] == ["Worker 1", "Worker 2"]
assert [x["target"] for x in ph[1]["streams"]] == [[t + "/w1.dat", t + "/w2.dat"], t + "/w3.dat"], ph[1]["streams"]
assert ph[1]["streams"][0]["qd"] == 4 and ph[1]["streams"][1]["qd"] == 8 and ph[1]["workers"] == 3
assert ph[2]["target"] == t + "/w3.dat" and ph[2]["qd"] == 8 and ph[0]["definition"]["seed"] == 42
assert all(p["ios"] > 0 for p in ph)
PY
ok $? "each worker a stream on its own targets, at its own queue depth; every phase did I/O"
out=$("$IOMOON" suite "$D/workers.icf" --target "$TMP/x1.dat" --size 8m --time 0.2 2>&1)
is "$?" 2 "two paths short of the file's three disk targets: exit 2"
like "$out" "^iomoon suite: --target: the file names 3 disk targets \(sdb, sdc, sdd\); give 3 paths" "the message says how many and which"
[ ! -e "$TMP/x1.dat" ]; ok $? "... and nothing was created"

# ---- what iomoon does not do: one error naming each, exit 2, nothing created ----
mkdir "$TMP/net"
out=$(cd "$TMP/net" && "$IOMOON" suite "$D/network.icf" --target n1.dat,n2.dat --size 8m --time 0.2 2>&1)
is "$?" 2 "a network worker: exit 2"
is "$(printf '%s\n' "$out" | wc -l)" 1 "one line on stderr"
like "$out" "worker 'Net 1': a network worker \(NETWORK,TCP\)" "it names the network worker"
like "$out" "line 36: access spec '64K; 0% Read; 100% random': reply size 512" "and the reply, with its line"
is "$(ls -A "$TMP/net")" "" "nothing was created"
(cd "$TMP/net" && "$IOMOON" suite "$D/network.icf" --target n1.dat,n2.dat --size 8m --time 0.2 --quiet \
	--skip-unsupported --format json --output n.json)
ok $? "--skip-unsupported runs the rest"
python3 - "$TMP/net/n.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
assert [p["name"] for p in ph] == ["4K; 100% Read; 0% random"], ph
sk = ph[0]["meta"]["iometer"]["skipped"]
assert len(sk) == 2 and "Net 1" in sk[1] and "reply size 512" in sk[0], sk
PY
ok $? "the skipped are listed in the result's meta.iometer.skipped"
out=$("$IOMOON" suite iometer-matrix --engine sim --skip-unsupported 2>&1)
like "$out" "only for an IOMeter .icf file" "--skip-unsupported with a Lua suite is refused"

# ---- convert: the Lua suite runs the same phases ----
"$IOMOON" convert "$D/cycling.icf" >"$TMP/cycling.lua"
ok $? "iomoon convert cycling.icf > cycling.lua"
like "$(cat "$TMP/cycling.lua")" "think = \{ burst = 16, delay = \"20ms\" \},  -- IOMeter's burst and delay" \
	"the converted suite comments where IOMeter's concepts land"
"$IOMOON" suite "$D/cycling.icf" --engine sim --time 0.05 --ramp 0 --quiet --format json --output a.json &&
	"$IOMOON" suite "$TMP/cycling.lua" --engine sim --time 0.05 --ramp 0 --quiet --format json --output b.json
ok $? "the .icf and its conversion both run"
python3 - a.json b.json <<'PY'
import json, sys
a, b = (json.load(open(f))["phases"] for f in sys.argv[1:])
assert len(a) == len(b) == 8
for x, y in zip(a, b):
    assert x["name"] == y["name"] and x["definition"] == y["definition"] and x["meta"] == y["meta"], (x["name"], y["name"])
PY
ok $? "phase by phase, the same names, definitions and meta"
"$IOMOON" convert "$D/openperformancetest.icf" --output "$TMP/opt.lua"
ok $? "convert --output writes the file"
grep -q '^local TARGETS = { "E: \\"New Volume\\"" }$' "$TMP/opt.lua"; ok $? "... naming the file's targets"
out=$("$IOMOON" convert "$TMP/opt.dat" 2>&1)
is "$?" 2 "convert of a file that is neither .icf nor .fio: exit 2"

# ---- results.csv: report in every format, compare with an iomoon run ----
for f in table csv json markdown html analyzer; do
	"$IOMOON" report "$D/results.csv" --format $f >"$TMP/r.$f"
	ok $? "iomoon report results.csv --format $f"
done
grep -q '^RealLife-60%Rand-65%Read  *12.160  *4244  *33.16  *9%' "$TMP/r.table"; ok $? "table: latency, IOPS, MiB/s, CPU as the sheet has them"
grep -q '^Random-8k-70%Read / Worker 2 ' "$TMP/r.table"; ok $? "table: a row per worker, then the test's"
is "$(grep -c '' "$TMP/r.csv")" 7 "csv: a header and six rows (four tests, two workers)"
python3 -c "import json,sys; d=json.load(open('$TMP/r.json')); assert abs(d['phases'][2]['iops']-4812.83)<1e-6 and d['iomoon']=='IOMeter 1.1.0'"
ok $? "json: the ALL row's IOPS, the sheet's version"
grep -q '| Max Throughput-50%Read | 4813 | 150.40 | 78.830 |' "$TMP/r.markdown"; ok $? "markdown row"
grep -q 'Max Throughput-50%Read' "$TMP/r.html"; ok $? "html names the tests"
grep -q '^AccessSpec=Random-8k-70%Read$' "$TMP/r.analyzer"; ok $? "analyzer: AccessSpec= as I/O Analyzer writes it"
"$IOMOON" suite "$D/openperformancetest.icf" --engine sim --time 0.1 --quiet --format json --output new.json
"$IOMOON" compare "$D/results.csv" new.json --format csv >"$TMP/cmp.csv"
ok $? "iomoon compare results.csv new.json"
is "$(cut -d, -f1 "$TMP/cmp.csv" | sort -u | grep -c 'Max Throughput-100%Read\|RealLife\|Max Throughput-50%Read\|Random-8k')" 4 \
	"the four tests matched by access specification name"
grep -q '^"Max Throughput-100%Read","IOPS","6380",' "$TMP/cmp.csv"; ok $? "A's IOPS is the sheet's"

# ---- hostile files: exit 2 with one line naming the file and line, nothing written ----
# a results.csv row cut short, a cell that is no number, one past a double
H="'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,Read IOps,Write IOps,MiBps (Binary),MBps (Decimal),Average Response Time,Maximum Response Time,Errors,Bytes Read,Bytes Written,Read I/Os,Write I/Os,Queue Depth,% CPU Utilization"
for case in "short:ALL,All,4K,1,1:short\\.csv:5: a row of 5 fields where the column names are 20" \
	"word:ALL,All,4K,1,1,1,abc,1,0,1,1,1,1,0,1,0,1,0,1,1:word\\.csv:5: column 'IOps': 'abc' is not a number" \
	"inf:ALL,All,4K,1,1,1,1,1,0,1,1,1e999,1,0,1,0,1,0,1,1:inf\\.csv:5: column 'Average Response Time': '1e999' is not a number" \
	"negiops:ALL,All,4K,1,1,1,-100,1,0,1,1,1,1,0,1,0,1,0,1,1:negiops\\.csv:5: column 'IOps': '-100' is not a figure of 0 or more" \
	"neglat:ALL,All,4K,1,1,1,1,1,0,1,1,-0.5,1,0,1,0,1,0,1,1:neglat\\.csv:5: column 'Average Response Time': '-0\\.5' is not a figure of 0 or more" \
	"fracerr:ALL,All,4K,1,1,1,1,1,0,1,1,1,1,1.5,1,0,1,0,1,1:fracerr\\.csv:5: column 'Errors': '1\\.5' is not a count \\(a whole number of 0 or more is needed\\)" \
	"negerr:ALL,All,4K,1,1,1,1,1,0,1,1,1,1,-1,1,0,1,0,1,1:negerr\\.csv:5: column 'Errors': '-1' is not a count" \
	"hexerr:ALL,All,4K,1,1,1,1,1,0,1,1,1,1,0x10,1,0,1,0,1,1:hexerr\\.csv:5: column 'Errors': '0x10' is not a number \\(a finite decimal is needed\\)"; do
	name=${case%%:*} rest=${case#*:}
	printf "'Version\n1.1.0\n'Results\n%s\n%s\n" "$H" "${rest%%:*}" >$name.csv
	err=$("$IOMOON" report $name.csv --format html --output $name.html 2>&1)
	like "$?:$(printf '%s' "$err" | wc -l):$err" "^2:0:iomoon report: ${rest#*:}" "results.csv with a broken row ($name): exit 2 naming the line and column"
	[ ! -e $name.html ]; ok $? "... no report written"
done
# a name in quotes, as a spreadsheet writes a sheet back: its text, commas and "" included, without the quotes
printf "'Version\n1.1.0\n'Results\n%s\n%s\n" "$H" 'ALL,"All"," 4K, ""seq"" read",1,1,1,100,100,0,1,1,1,2,0,409600,0,100,0,1,5' >quoted.csv
"$IOMOON" report quoted.csv --format json --output quoted.json
python3 -c 'import json; p = json.load(open("quoted.json"))["phases"][0]; print(p["name"] + "|" + p["target"] + "|" + str(p["iops"]))' >quoted.txt
is "$?:$(cat quoted.txt)" '0: 4K, "seq" read|All|100' "results.csv: a quoted name without its quotes, its commas and quotes kept"
is "$("$IOMOON" report quoted.csv | grep -c '^ 4K, "seq" read  *1\.000  *100 ')" 1 "... in the table too"
# every cell in quotes, as a spreadsheet told to quote all writes it: the last one too
printf "'Version\n1.1.0\n'Results\n%s\n%s\n" "$H" '"ALL","All","4K","1","1","1","100","100","0","1","1","1","2","0","409600","0","100","0","1","5"' >allq.csv
"$IOMOON" report allq.csv --format json --output allq.json
python3 -c 'import json; p = json.load(open("allq.json"))["phases"][0]; print(p["name"], p["iops"], p["cpu"]["util_pct"])' >allq.txt 2>/dev/null
is "$?:$(cat allq.txt)" "0:4K 100 5" "results.csv with every cell quoted: read, its last cell (% CPU) too"
# Queue Depth Cycling past 10,000 tests is refused, not cut silently
sed "s/^\t1          8          2          EXPONENTIAL$/\t1 100000 1 LINEAR/" "$D/cycling.icf" >many.icf
if ! cmp -s many.icf "$D/cycling.icf"; then
	err=$("$IOMOON" convert many.icf 2>&1 >many.lua)
	is "$?:$err" "2:iomoon convert: many.icf: the cycling makes more than 10000 tests" "a cycle of 100,000 queue depths: exit 2"
else
	skip "cycling.icf has no queue depth cycle line to change"
fi
# a file name with a newline stays inside the converted suite's comments (it was a line of code there)
f=$'x\nio.open("PWNED", "w")\n.icf'
cp "$D/cycling.icf" "$f"
"$IOMOON" convert "$f" >nl.lua
is "$?:$(grep -c '^io.open' nl.lua)" "0:0" "convert: a newline in the file's name does not end a comment"
"$IOMOON" suite ./nl.lua --engine sim --time 0.05 --ramp 0 --quiet --format none
[ ! -e PWNED ]; ok $? "... running the suite runs nothing else"
# a CR inside a worker's or target's name (Lua ends a comment there too) stays in its comment
sed 's/^\tWorker 1$/\tW\rio.open("PWNED", "w")/; s/^\tsdb$/\tsdb\rio.open("PWNED", "w")/' "$D/workers.icf" >cr.icf
"$IOMOON" convert cr.icf >cr.lua
is "$?:$(grep -c $'\r' cr.icf):$(grep -c $'\r' cr.lua)" "0:2:0" "convert: a CR in a worker's or target's name is not written into the suite"
# a value the suite's file set is named as its field, not as an option that was not given
err=$("$IOMOON" suite "$LUA_DIR/qd.lua" --engine sim 2>&1)
like "$?:$err" "^2:iomoon suite: phase\\.qd: 5000 is out of range" "a suite's own qd: named phase.qd (no --qd was given)"
err=$("$IOMOON" suite "$LUA_DIR/qd.lua" --engine sim --qd 9999 2>&1)
like "$?:$err" "^2:iomoon suite: --qd: 9999 is out of range" "--qd given: named --qd"
# ---- managers are hosts: the GUI host without workers ignored, one rank per manager with workers ----
out=$("$IOMOON" suite "$D/gui-host.icf" --target gh1.dat,gh2.dat --size 4m --time 0.2 2>&1)
is "$?" 0 "gui-host.icf (the workers on the second manager, none on the first): runs here, no --skip-unsupported"
is "$(printf '%s\n' "$out" | grep -c 'Sequential reads of four KiB blocks, one worker each')" 3 \
	"... the second manager's two workers, a row each, and their total"
# every row's figures end where the header's columns end, however long the name
is "$(printf '%s\n' "$out" | sed 1d | sed 's/  host busy: .*//' | awk '{ print length($0) }' | sort -u | wc -l)" 1 \
	"... a 63-character row name keeps the figures in their columns"
err=$("$IOMOON" suite "$D/two-managers.icf" --target t1.dat,t2.dat,t3.dat,t4.dat --size 4m --time 0.2 2>&1)
is "$?" 2 "two managers with workers, without mpirun: exit 2"
like "$err" "2 managers have workers \('loadgen-a', 'loadgen-b'\): run it under mpirun -n 2 .*--manager NAME" \
	"... naming them, mpirun -n 2 and --manager"
[ ! -e t1.dat ]; ok $? "... nothing created"
"$IOMOON" suite "$D/two-managers.icf" --manager loadgen-b --target b1.dat,b2.dat --size 4m --time 0.2 --quiet \
	--format json --output mb.json
is "$?:$(python3 -c 'import json; p=json.load(open("mb.json"))["phases"][0]; print(sorted(s["qd"] for s in p["streams"]))')" \
	"0:[1, 8]" "--manager loadgen-b: its two workers (qd 8 and 1) run here"
err=$("$IOMOON" suite "$D/two-managers.icf" --manager GUI-HOST --target b1.dat --size 4m 2>&1)
like "$?:$err" "^2:.*--manager: 'GUI-HOST' has no workers \(managers with workers: 'loadgen-a', 'loadgen-b'\)" \
	"--manager naming the GUI host: exit 2, saying which have workers"
if command -v mpirun >/dev/null && "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi ' && [ "${IOMOON#*asan}" = "$IOMOON" ]; then
	OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1 \
		timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$IOMOON" suite \
		"$D/two-managers.icf" --target m1.dat,m2.dat,m3.dat,m4.dat --size 4m --time 0.2 --quiet --format json \
		--output mpi.json >/dev/null 2>mpi.err
	is "$?" 0 "two-managers.icf under mpirun -n 2: runs"
	is "$(python3 -c 'import json; p=json.load(open("mpi.json"))["phases"][0]; print([(h["rank"], h["workers"], h["qd"]) for h in p["hosts"]])')" \
		"[(0, 2, 4), (1, 2, 8)]" "... manager 1's workers on rank 0 (qd 4 and 2), manager 2's on rank 1 (qd 8 and 1)"
	is "$(ls m1.dat m2.dat m3.dat m4.dat 2>/dev/null | wc -l)" 4 "... each on its own targets (--target lists every manager's)"
else
	skip "mpirun or iomoon's MPI build missing"; skip "mpirun missing"; skip "mpirun missing"
fi
err=$("$IOMOON" convert "$D/two-managers.icf" 2>&1 >/dev/null)
like "$?:$err" "^2:.*a converted suite runs one manager's; pick it with --manager NAME" "convert: several managers, --manager picks one"
"$IOMOON" convert "$D/two-managers.icf" --manager loadgen-a >conv.lua
is "$?:$(grep -c 'name = "Worker [12]", .* qd = [42],' conv.lua)" "0:2" "... --manager loadgen-a: its two workers (qd 4 and 2) in the suite"
# 'Default Disk Workers to Spawn NUMBER_OF_CPUS: a file without a manager list runs a worker per CPU
sed -e '/^.MANAGER LIST/,$d' -e 's/,NONE$/,ALL/' "$D/workers.icf" >spawn.icf
"$IOMOON" suite spawn.icf --target sp.dat --size 4m --time 0.1 --quiet --format json --output sp.json
is "$?:$(python3 -c 'import json; print(json.load(open("sp.json"))["phases"][0]["workers"])')" "0:$(nproc)" \
	"Default Disk Workers to Spawn NUMBER_OF_CPUS: $(nproc) workers, one per CPU"
sed -i 's/^\tNUMBER_OF_CPUS$/\tmany/' spawn.icf
err=$("$IOMOON" suite spawn.icf --target sp.dat --size 4m 2>&1)
like "$?:$err" "^2:.*Default Disk Workers to Spawn: 'many' is not a number of workers or NUMBER_OF_CPUS" "... 'many': exit 2"
# text written on Windows: CP1252 bytes (an access specification "Größe",
# f6 df) read as CP1252, a UTF-16 file (with its byte order mark) as
# UTF-16: each converts to the same UTF-8 suite, and its run's 0.0.4
# metrics text is valid (promtool)
mkdir cp u8 u16
sed $'s/\tFile Server,DISK/\tFile Server Gr\xf6\xdfe,DISK/' "$D/cycling.icf" >cp/g.icf
sed 's/\tFile Server,DISK/\tFile Server Größe,DISK/' "$D/cycling.icf" >u8/g.icf
python3 -c 'import sys; open(sys.argv[2], "wb").write(b"\xff\xfe" + open(sys.argv[1], "rb").read().decode().encode("utf-16-le"))' u8/g.icf u16/g.icf
for c in cp u8 u16; do (cd $c && "$IOMOON" convert g.icf >g.lua; echo $? >rc); done
like "$(cat cp/rc):$(grep -m1 'Gr.*e (QD 1)' cp/g.lua)" '^0:.*name = "File Server Größe \(QD 1\)"' "a CP1252 .icf: its names read as CP1252 (Größe)"
is "$(cat u16/rc):$(cmp cp/g.lua u8/g.lua && cmp u16/g.lua u8/g.lua && echo same)" "0:same" "... the CP1252, UTF-8 and UTF-16 files convert alike"
if command -v promtool >/dev/null; then
	"$IOMOON" suite cp/g.icf --target cp.dat --size 4m --time 0.1 --metrics-file cp.prom --quiet --format none
	out=$(promtool check metrics <cp.prom 2>&1); ok $? "... its run's metrics text: promtool accepts it"
	[ -n "$out" ] && echo "$out" | sed 's/^/#   /'
else
	skip "promtool missing"
fi
# a results.csv with one long line (a MANAGER row 2000 times: 910 KB) reads
# in linear time: well within 30 s (it took minutes: quadratic)
python3 -c 'import sys; l = open(sys.argv[1]).read().split("\n"); l.insert(48, l[47] * 2000); open("long.csv", "w").write("\n".join(l))' \
	"$D/results.csv"
t0=$(secs)
timeout -s KILL 60 "$IOMOON" report long.csv --format json >long.json
rc=$? took=$(since "$t0")
is "$rc:$(awk -v t="$took" 'BEGIN { print (t < 30) }')" "0:1" "a results.csv line of 910 KB: read in ${took} s (< 30 s; linear)"
done_testing
