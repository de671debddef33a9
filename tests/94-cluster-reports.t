#!/bin/bash
# Reports of a run on several hosts (issue 15, doc/reports.md "Many hosts"):
# a phase whose result has `hosts` shows one row per host, with that
# host's own figures, before its total, in every format; CSV gains Host and
# Rank; a saved run's hosts and cluster round-trip and are checked; compare
# compares the totals. The fixture tests/cluster/two-hosts.json holds a
# real mpirun -n 2 phase ("randread", hosts renamed node-a and node-b), a
# phase of two streams with hosts written by hand (node-b failed), and a
# phase run on one host ("one host"). The hand-written hosts say what they
# ran (workers, qd, targets); the real phase's, saved before hosts did, do
# not.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
FIX="$T/cluster/two-hosts.json"

# csv_cells FILE ROW-NAME COLUMN...: the cells of a CSV report's row, tab-separated
csv_cells() {
	python3 - "$@" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
for r in rows[1:]:
    if r[h.index("Access Specification Name")] == sys.argv[2]:
        print("\t".join(r[h.index(c)] for c in sys.argv[3:]))
PY
}

# ---- the table: the rows' names and order, each host's own figures ----
out=$("$IOMOON" report "$FIX" --format table); ok $? "report --format table: exit 0"
is "$(printf '%s\n' "$out" | grep -v '^engine ' | sed 1d | sed -E 's/  +[0-9.]+ .*//')" "randread / rank 0 (node-a)
randread / rank 1 (node-b)
randread
two streams / r
two streams / w
two streams / rank 0 (node-a)
two streams / rank 1 (node-b)
two streams
one host" "table: streams, then one row per host, then the total; a phase on one host is one row"
# node-a of randread: mean 124878.5 ns, 32020 IOPS, 262307840 B / 2 s / 2^20 = 125.08 MiB/s, 100 %, p99 142847 ns
like "$out" $'randread / rank 0 \\(node-a\\) +0\\.125 +32020 +125\\.08 +100% +0\\.143 +-\n' "table: node-a's row reads node-a's mean, IOPS, MiB/s, cpu and p99"
like "$out" $'randread / rank 1 \\(node-b\\) +0\\.136 +29346 +114\\.63 +100% +0\\.217 +-\n' "table: node-b's row reads node-b's figures"
like "$out" $'\nrandread +0\\.130 +61366 +239\\.71 +100% +0\\.179 +-\n' "table: the total row is the cluster's merged figures"
like "$out" 'two streams / rank 1 \(node-b\) +0\.350 +7037 +489\.71 +60% +1\.500 +-  interrupted; FAILED: target refused: /mnt/san/node-b\.dat; 2 errors' \
	"table: a failed host's row says interrupted, FAILED with its error, and its 2 errors"
like "$out" $'two streams / rank 0 \\(node-a\\) +0\\.250 +10000 +100\\.00 +40% +0\\.900 +-\n' "table: a host row of a phase with streams: the host's figures, no mark"

# ---- CSV: Host and Rank; a host's row fills only what a host has ----
"$IOMOON" report "$FIX" --format csv >c.csv; ok $? "report --format csv: exit 0"
is "$(head -1 c.csv | tr -d '\r' | awk -F'","' '{print $(NF-3) "|" $(NF-2) "|" $(NF-1) "|" $NF}')" 'Phase Name|Stream|Host|Rank"' \
	"csv: Host and Rank are the last columns, after the stream columns"
is "$(csv_cells c.csv 'randread / rank 0 (node-a)' IOps 'MBps (Binary)' 'MBps (Decimal)' 'Average Response Time (ms)' 'Maximum Response Time (ms)' 'p50 Response Time (ms)' 'p99 Response Time (ms)' '% CPU Utilization' '% User Time' 'Measured Time (s)' Errors Failed Host Rank)" \
	$'32020.00\t125.08\t131.15\t0.1249\t13.4187\t0.1001\t0.1428\t100.00\t\t2.000\t0\tno\tnode-a\t0' "csv: node-a's row: its IOPS, MiB/s, MB/s, mean, max, p50, p99, cpu, seconds, errors; Host node-a, Rank 0; no user time (the file has none of the machine's)"
is "$(csv_cells c.csv 'randread / rank 1 (node-b)' IOps 'p99 Response Time (ms)' 'Maximum Response Time (ms)' '% Privileged Time' Host Rank)" \
	$'29346.00\t0.2166\t20.2392\t\tnode-b\t1' "csv: node-b's row: its own IOPS, p99 and max; no privileged time (the file has none of the machine's)"
# a host's machine shares, where the file has them (an iomoon since issue 48): % User Time + % Privileged Time = % CPU Utilization, iomoon's own beside it
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); h = d["phases"][0]["hosts"][0]
h.update(user_pct = 61.5, sys_pct = 38.5, self_pct = 22.25)
json.dump(d, open(sys.argv[2], "w"))' "$FIX" "$TMP/pct.json"
"$IOMOON" report "$TMP/pct.json" --format csv >pct.csv
is "$(csv_cells pct.csv 'randread / rank 0 (node-a)' '% CPU Utilization' '% User Time' '% Privileged Time' 'iomoon CPU (% of the machine)')" \
	$'100.00\t61.50\t38.50\t22.25' "csv: a host's row: its machine's CPU, user and privileged shares (summing to it), and iomoon's own"
is "$(csv_cells c.csv 'randread / rank 0 (node-a)' 'Target Type' 'Target Name' '# Workers' 'Read IOps' 'Write MBps (Binary)' 'Bytes Read' 'p99.9 Response Time (ms)' 'Queue Depth' Engine | tr '\t' '|')" \
	'||||||||' "csv: the columns a host does not have (target, workers, read/write split, p99.9, qd, engine) are empty on its row, not the cluster's"
is "$(csv_cells c.csv randread IOps 'Read IOps' Host Rank)" $'61366.00\t61366.00\tAll\t' "csv: the total row: the cluster's figures, Host All, Rank empty"
is "$(csv_cells c.csv 'two streams / rank 1 (node-b)' Errors Interrupted Failed Stream Host Rank)" $'2\tyes\tyes\tAll\tnode-b\t1' \
	"csv: a failed host's row: its errors, interrupted and failed; Stream All under a phase with streams"
is "$(csv_cells c.csv 'two streams / w' Stream Host Rank)" $'2\tAll\t' "csv: a stream row of a phase on several hosts: Host All"
is "$(csv_cells c.csv 'one host' Host Rank)" $'\t' "csv: a phase run on one host: Host and Rank empty"

# ---- without hosts: exactly the report of the merged results ----
python3 - "$FIX" nohosts.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["phases"]:
    p.pop("hosts", None); p.pop("cluster", None)
json.dump(d, open(sys.argv[2], "w"))
PY
"$IOMOON" report nohosts.json --format csv >n.csv; ok $? "csv without hosts: exit 0"
head -1 n.csv | grep -q '"Host"'; ok $((!$?)) "csv without hosts: no Host column"
# the clustered CSV less its host rows and its last two columns is the plain
# CSV, byte for byte, but for what the totals ran (workers, queue depth,
# targets: the hosts', not rank 0's), which the plain CSV takes as rank 0's
python3 - c.csv n.csv <<'PY'
import csv, io, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
plain = list(csv.reader(open(sys.argv[2], newline="")))
h = rows[0]
setup = [h.index(c) for c in ("Target Type", "Target Name", "# Workers", "# Disks", "Queue Depth")]
full = [r for r in rows if r[-2] not in ("node-a", "node-b")]
keep = [r[:-2] for r in full]
for r, f, p in zip(keep, full, plain):
    if f[h.index("Host")] == "All" and f[h.index("Stream")] in ("", "All"):
        for i in setup: r[i] = p[i]
buf = io.StringIO()
csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\r\n").writerows(keep)
sys.exit(0 if buf.getvalue() == open(sys.argv[2], newline="").read() else 1)
PY
ok $? "csv: less the host rows and Host/Rank (and what the totals ran), the clustered CSV equals the CSV of the same run without hosts"
# what a total ran is the hosts', never rank 0's: workers summed, the queue
# depth they share (else empty: it is per worker), "N targets"; empty where
# the hosts do not say (randread, saved by an iomoon before they did)
hdr='Target Type|Target Name|# Workers|# Disks|Queue Depth'
is "$(csv_cells c.csv randread 'Target Type' 'Target Name' '# Workers' '# Disks' 'Queue Depth' | tr '\t' '|')" '||||' \
	"csv: the total of a run whose hosts do not say what they ran: $hdr empty, not rank 0's (NONE, (none), 1, 1, 4)"
is "$(csv_cells c.csv 'two streams' 'Target Type' 'Target Name' '# Workers' '# Disks' 'Queue Depth' | tr '\t' '|')" '|2 targets|4|2|' \
	"csv: the total of hosts of 2 workers and 1 target each, at qd 1 and 4: 4 workers, 2 targets, no one queue depth"
is "$(csv_cells c.csv 'two streams / rank 1 (node-b)' 'Target Name' '# Workers' '# Disks' 'Queue Depth' | tr '\t' '|')" '|2|1|4' \
	"csv: a host's row: its own workers, targets and queue depth (no path: the host's is not saved)"
python3 - "$FIX" same.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for h in d["phases"][0]["hosts"]: h.update(workers=3, qd=8, targets=0)
json.dump(d, open(sys.argv[2], "w"))
PY
"$IOMOON" report same.json --format csv >same.csv
is "$(csv_cells same.csv randread 'Target Type' 'Target Name' '# Workers' '# Disks' 'Queue Depth' | tr '\t' '|')" 'NONE|(none)|6|0|8' \
	"csv: hosts on sim at the same queue depth: NONE, (none), their 6 workers, 0 targets, qd 8"
for f in table markdown analyzer; do
	# (the table's line above it says "on 2 ranks" only with hosts)
	"$IOMOON" report "$FIX" --format $f | grep -v 'rank [01] (node-\|^engine \|^- .*: engine ' >h.$f
	"$IOMOON" report nohosts.json --format $f | grep -v '^engine \|^- .*: engine ' >n.$f
	cmp -s h.$f n.$f; ok $? "$f: less the host rows, the same bytes as without hosts"
done

# ---- markdown, analyzer ----
md=$("$IOMOON" report "$FIX" --format markdown)
like "$md" '\| randread / rank 1 \(node-b\) \| 29346 \| 114\.63 \| 0\.136 \| 0\.217 \| 100 \| - \| 0 \| ok \|' "markdown: node-b's row with its own figures"
like "$md" '\| two streams / rank 1 \(node-b\) \| 7037 \| 489\.71 \| 0\.350 \| 1\.500 \| 60 \| - \| 2 \| interrupted; FAILED: target refused: /mnt/san/node-b\.dat; 2 errors \|' "markdown: the failed host's row and status"
an=$("$IOMOON" report "$FIX" --format analyzer)
is "$(printf '%s\n' "$an" | grep -c '^AccessSpec=')" 5 "analyzer: a block per stream and per phase, none per host (no read/write split)"

# ---- JSON round trip ----
"$IOMOON" report "$FIX" --format json >rt.json; ok $? "report --format json: exit 0"
python3 - "$FIX" rt.json <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for pa, pb in zip(a["phases"], b["phases"]):
    assert pa.get("hosts") == pb.get("hosts"), pa["name"]
    assert pa.get("cluster") == pb.get("cluster"), pa["name"]
assert b["phases"][0]["hosts"][1]["host"] == "node-b" and b["phases"][0]["hosts"][1]["ios"] == 58692
assert b["phases"][1]["cluster"]["stopped_by"] == 1
PY
ok $? "json: hosts and cluster come back as saved (node-b's 58692 I/Os, stopped_by 1)"
"$IOMOON" report rt.json --format csv | cmp -s - c.csv; ok $? "json: the round-tripped file gives the same CSV"

# ---- HTML: host rows under their phase, ranks and start skew ----
"$IOMOON" report "$FIX" --format html >r.html; ok $? "report --format html: exit 0"
like "$(cat r.html)" '<p id="cluster">Run under MPI on <b>2 ranks</b>; start skew between the ranks.? measurement starts: 52\.0 &micro;s \(the largest of the phases\); <span class="mark">stopped: two streams by rank 1' \
	"html: says 2 ranks, the largest start skew (52000 ns) and which rank stopped which phase"
is "$(grep -o '<tr[^>]*><td class="n"><a href="#phase-1">[^<]*' r.html | sed 's/<td.*">/ /')" '<tr class="stream host"> randread / rank 0 (node-a)
<tr class="stream host"> randread / rank 1 (node-b)
<tr> randread' "html: the summary shows the host rows under their phase, then the total"
like "$(grep -A6 'rank 1 (node-b)</a>' r.html | head -7 | tr -d '\n')" '<td>0\.136</td><td>29346</td><td>114\.63</td><td>100%</td><td>0\.217</td>' "html: node-b's row reads node-b's figures"

# ---- hostile input: a clear input error, or shown escaped; never a traceback ----
# hostile NAME PYTHON-EXPR: the fixture with phases[0] (p) changed
hostile() {
	python3 - "$FIX" "$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); p = d["phases"][0]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
bad() { # bad NAME EXPR MESSAGE-REGEX
	hostile "$1" "$2"
	local out err rc
	out=$("$IOMOON" report "$1.json" --format table 2>err); rc=$?
	err=$(cat err)
	is "$rc" 2 "$1: exit 2"
	like "$err" "$3" "$1: says what is wrong"
	is "$(printf '%s\n' "$err" | wc -l)$out" 1 "$1: one line on stderr, nothing on stdout"
	printf '%s' "$err" | grep -q traceback; ok $((!$?)) "$1: no traceback"
}
bad hosts-object 'p["hosts"] = {"a": 1}' '^iomoon report: .*hosts-object\.json: phases\[1\]\.hosts is not a list'
bad hosts-string 'p["hosts"] = "node-a"' 'phases\[1\]\.hosts is not a list'
bad host-string 'p["hosts"][1] = "node-b"' 'phases\[1\]\.hosts\[2\] is a string \(an object is needed\)'
bad host-list 'p["hosts"][0] = [1, 2]' 'phases\[1\]\.hosts\[1\] is a list \(an object is needed\)'
bad host-name-number 'p["hosts"][0]["host"] = 7' 'phases\[1\]\.hosts\[1\]\.host is a number \(a string is needed\)'
bad iops-string 'p["hosts"][1]["iops"] = "fast"' 'phases\[1\]\.hosts\[2\]\.iops is a string \(a number is needed\)'
bad rank-huge 'p["hosts"][0]["rank"] = 1e300' 'phases\[1\]\.hosts\[1\]\.rank is 1e\+300 \(a whole number of 0 or more is needed\)'
bad errors-negative 'p["hosts"][0]["errors"] = -1' 'phases\[1\]\.hosts\[1\]\.errors is -1 \(a whole number'
bad host-qd-half 'p["hosts"][0]["qd"] = 1.5' 'phases\[1\]\.hosts\[1\]\.qd is 1\.5 \(a whole number of 0 or more is needed\)'
bad cluster-list 'p["cluster"] = [2]' 'phases\[1\]\.cluster is not an object'
bad ranks-string 'p["cluster"]["ranks"] = "two"' 'phases\[1\]\.cluster\.ranks is a string \(a number is needed\)'

hostile huge 'p["hosts"][0].update(iops=1e308, bytes=2**63 - 1, mean_ns=1e300, errors=2**62); p["cluster"]["start_skew_ns"] = 1e300'
for f in table csv markdown html json analyzer fio-json; do
	"$IOMOON" report huge.json --format $f >out-huge.$f 2>err; ok $? "huge numbers: --format $f renders (exit 0)"
	[ ! -s err ]; ok $? "huge numbers: --format $f says nothing on stderr"
done
like "$(sed -n 3p out-huge.table)" '^randread / rank 0 \(node-a\) +1[0-9]{294}\.000 +1[0-9]{308} +4398046511104\.00 .* 4611686018427387904 errors$' "huge numbers: written out in full on the host's row (mean, IOPS, MiB/s, errors)"
is "$(csv_cells out-huge.csv 'randread / rank 0 (node-a)' Errors)" 4611686018427387904 "huge numbers: an error count of 2^62 exactly"

hostile ctrl 'p["hosts"][0].update(host="evil\nrow\x1b[31m=|<b>", failed=True, error="no\r\nway")'
"$IOMOON" report ctrl.json --format table >ctrl.table; ok $? "control characters in a host name: table exit 0"
like "$(sed -n 3p ctrl.table)" '^randread / rank 0 \(evil\\nrow\\x1b\[31m=\|<b>\) .*FAILED: no\\r\\nway$' "table: the host's name and error shown escaped, on one line"
is "$(wc -l <ctrl.table)" 12 "table: still 12 lines (two of how the phases ran, a header and 9 rows)"
"$IOMOON" report ctrl.json --format csv >ctrl.csv
is "$(csv_cells ctrl.csv 'randread / rank 0 (evil\nrow\x1b[31m=|<b>)' Host Failed)" $'evil\\nrow\\x1b[31m=|<b>\tyes' "csv: the host's name shown escaped in the row's name and Host"
"$IOMOON" report ctrl.json --format html >ctrl.html
grep -q 'rank 0 (evil\\nrow\\x1b\[31m=|&#60;b&#62;)' ctrl.html; ok $? "html: the host's name escaped, < > as entities"
! grep -q '<b>)' ctrl.html; ok $? "html: no tag from a host's name"

# a host's long name (in the second phase) widens the table's first
# column: every row stays aligned
hostile long 'd["phases"][1]["hosts"][0]["host"] = "node-a.rack12.datacenter.example.com"'
"$IOMOON" report long.json >long.table
w=$(grep '^Test name' long.table | sed -E 's/ +$//' | wc -c)
is "$(grep -E '^randread|^two streams|^one host' long.table | sed -E 's/  [a-zA-Z].*//; s/ +$//' | awk '{ print length($0) + 1 }' | sort -u)" "$w" \
	"table: with a host named node-a.rack12.datacenter.example.com every row ends its p99 under the header's"
like "$(grep 'rank 0 (node-a.rack12' long.table)" '^two streams / rank 0 \(node-a\.rack12\.datacenter\.example\.com\)  +0\.250 ' "table: the long host row (of the second phase) in full, its figures in their columns"

# ---- compare: the totals, as for one host ----
hostile other 'p["iops"] = p["iops"] * 2; p["hosts"][0]["iops"] = 1'
out=$("$IOMOON" compare "$FIX" other.json --format csv); ok $? "compare of two clustered runs: exit 0"
like "$out" '"randread","IOPS","61366","122732"' "compare: the total's IOPS, A against B"
printf '%s' "$out" | grep -q 'rank 0'; ok $((!$?)) "compare: no host row in the comparison"
for f in table json markdown html; do
	"$IOMOON" compare "$FIX" other.json --format $f >cmp.$f 2>err; ok $? "compare --format $f with hosts: exit 0"
	[ ! -s err ]; ok $? "compare --format $f with hosts: nothing on stderr"
done

# ---- one real run under mpirun -n 2 ----
if ! command -v mpirun >/dev/null || ! "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi '; then
	for i in 1 2 3 4; do skip "mpirun or MPI support missing"; done
else
	case "$IOMOON" in *asan*) for i in 1 2 3 4; do skip "MPI runs: not under ASan"; done ;; *)
	export OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1
	timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$IOMOON" run --quiet --format json --output m.json "$LUA_DIR/mpi.lua" "$TMP" >/dev/null 2>err
	ok $? "mpirun -n 2: a phase runs and writes its JSON"
	"$IOMOON" report m.json --format csv >m.csv
	python3 - m.json m.csv <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))["phases"][0]
rows = list(csv.reader(open(sys.argv[2], newline="")))
h = rows[0]
by = {r[h.index("Access Specification Name")]: r for r in rows[1:]}
assert len(rows) == 4, rows
for i, x in enumerate(d["hosts"]):
    r = by["mpi / rank %d (%s)" % (i, x["host"])]
    assert r[h.index("IOps")] == "%.2f" % x["iops"], (r, x)
    assert r[h.index("p99 Response Time (ms)")] == "%.4f" % (x["p99_ns"] / 1e6)
    assert r[h.index("Rank")] == str(i) and r[h.index("Host")] == x["host"]
    assert (x["workers"], x["qd"], x["targets"]) == (2, 4, 1), x
    assert [r[h.index(c)] for c in ("# Workers", "Queue Depth", "# Disks")] == ["2", "4", "1"], r
assert by["mpi"][h.index("Host")] == "All"
assert sum(x["ios"] for x in d["hosts"]) == d["ios"]
assert [by["mpi"][h.index(c)] for c in ("Target Name", "# Workers", "Queue Depth", "# Disks")] == ["2 targets", "4", "4", "2"], by["mpi"]
PY
	ok $? "mpirun -n 2: the CSV has rank 0 and rank 1 rows with their hosts' IOPS, p99, workers, qd and target, and the total: 2 targets, 4 workers at qd 4"
	"$IOMOON" report m.json --format table >m.table
	"$IOMOON" report m.json --format html >m.html
	grep -q '<p id="cluster">Run under MPI on <b>2 ranks</b>; start skew' m.html
	ok $? "mpirun -n 2: the HTML report says 2 ranks and the start skew"
	like "$(cat m.table)" $'mpi / rank 0 \\([^)]+\\) .*\nmpi / rank 1 \\([^)]+\\) .*\nmpi  ' "mpirun -n 2: the table has the two host rows, then the total"
	;; esac
fi
done_testing
