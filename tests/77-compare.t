#!/bin/bash
# test: timed (holds a measurement to a bound: make bench-timing runs it alone with IOMOON_TIMING=1)
# Results that can be reproduced and compared (doc/reports.md): every
# result carries its definition, the JSON document the machine; `iomoon
# report` renders a saved run again, `compare` matches two by phase name,
# `rerun` runs the same phases again.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/compare.lua"
cd "$TMP" || exit 1

# ---- two runs: p1 at 1 ms and at 2 ms of service time (sim spends CPU per I/O: at 100 us a
# loaded machine's CPU, not the service time, would bound the rate), one phase each only in A or B ----
t0=$(date -u +%s.%N)
"$IOMOON" run --quiet --format json --output a.json "$LUA_DIR/run.lua" 1ms onlyA "$TMP/a"
is $? 0 "run A saved as JSON"
t1=$(date -u +%s.%N)
"$IOMOON" run --quiet --format json --output b.json "$LUA_DIR/run.lua" 2ms onlyB "$TMP/b"
is $? 0 "run B saved as JSON"

# ---- iomoon report: each format equals what the run made, byte for byte ----
for f in csv markdown table analyzer; do
	"$IOMOON" report a.json --format $f --output "r.$f"
	is $? 0 "report --format $f: exit 0"
	cmp -s "r.$f" "a.$f"; ok $? "report --format $f equals the run's own $f, byte for byte"
done
"$IOMOON" report a.json --format json >r.json
cmp -s r.json a.json; ok $? "report --format json of a JSON file is the file itself, byte for byte (machine and version kept)"
python3 -c '
import json; d = json.load(open("a.json")); del d["machine"]; json.dump(d, open("old.json", "w"))'
"$IOMOON" report old.json --format json | python3 -c 'import json, sys; d = json.load(sys.stdin); print("machine" in d, len(d["phases"]))' >old.out
is "$(cat old.out)" "False 3" "report of a file without a machine (an older iomoon's): none is made up"
"$IOMOON" report a.json --format csv | cmp -s - a.csv; ok $? "report without --output writes to standard output"
"$IOMOON" report a.json >r.default
cmp -s r.default a.table; ok $? "report's default format is the table"
if "$IOMOON" report a.json --format html --output r.html 2>html.err; then
	grep -q '<html' r.html; ok $? "report --format html writes an HTML document"
else
	skip "the html format is not built yet: $(head -c 120 html.err)"
fi

# ---- when it was measured, and how: started, ended (UTC), the command line ----
out=$(T0=$t0 T1=$t1 LUA_DIR="$LUA_DIR" python3 -c '
import json, os, re, datetime
d = json.load(open("a.json"))
iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
t = lambda s: datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()
rs = d["phases"] + [s for p in d["phases"] for s in p.get("streams", [])]
print(all(iso.match(r["started"]) and iso.match(r["ended"]) for r in rs),
      all(abs(t(r["ended"]) - t(r["started"]) - r["seconds"]) < 0.002 for r in rs),
      float(os.environ["T0"]) - 0.002 <= t(rs[0]["started"]) and t(d["phases"][-1]["ended"]) <= float(os.environ["T1"]) + 0.002,
      all(t(a["ended"]) <= t(b["started"]) for a, b in zip(d["phases"], d["phases"][1:])),
      d["command"] == "iomoon run --quiet --format json --output a.json %s/run.lua 1ms onlyA %s/a" % (os.environ["LUA_DIR"], os.getcwd()))')
is "$out" "True True True True True" \
	"every result says when it was measured (started, ended: ISO 8601 UTC, seconds apart, within the run, in order); the document its command line"
python3 -c '
import json, datetime
d = json.load(open("a.json")); f = json.load(open("/dev/stdin"))
e = datetime.datetime.strptime(d["phases"][-1]["ended"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
ms = int(e.timestamp()) * 1000 + e.microsecond // 1000
print(f["timestamp_ms"] == ms, f["timestamp"] == ms // 1000, f["time"] == e.strftime("%a %b %d %H:%M:%S %Y"))' \
	<<<"$("$IOMOON" report a.json --format fio-json)" >fio.out
is "$(cat fio.out)" "True True True" "report --format fio-json: timestamp, timestamp_ms and time are when the run's last phase ended, not now"
"$IOMOON" report a.json --format html --output when.html
first=$(python3 -c 'import json; print(json.load(open("a.json"))["phases"][0]["started"][:19].replace("T", " "))')
last=$(python3 -c 'import json; print(json.load(open("a.json"))["phases"][-1]["ended"][11:19])')
like "$(grep 'id="measured"' when.html)" "measured by iomoon [^ ]+ from $first to $last UTC: 3 phases" \
	"report --format html: measured from the first phase's start to the last one's end (not when the page was written)"
like "$(grep 'id="command"' when.html)" "command: <code>iomoon run --quiet --format json --output a\.json .*/run\.lua 1ms onlyA " \
	"report --format html: the command line that ran, from the file"
python3 -c '
import json; d = json.load(open("a.json")); del d["command"]
for p in d["phases"] + [s for p in d["phases"] for s in p.get("streams", [])]: del p["started"], p["ended"]
json.dump(d, open("notime.json", "w"))'
"$IOMOON" report notime.json --format fio-json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(sorted(k for k in ("time", "timestamp", "timestamp_ms") if k in d), len(d["jobs"]))' >notime.out
is "$(cat notime.out)" "[] 4" "fio-json of a file without times (an older iomoon's): no time at all, never now"
like "$("$IOMOON" report notime.json --format html | grep 'id="measured"')" "measured by iomoon [^ ]+ at a time the results do not say: 3 phases" \
	"html of a file without times: says the time is not known"
"$IOMOON" report notime.json --format json | grep -c '"command"' >notime.out
is "$(cat notime.out)" "0" "json of a file without a command line: none is made up (not report's own)"
python3 -c '
import json; d = json.load(open("a.json")); d["phases"][1]["ended"] = "19:05:32"; json.dump(d, open("badtime.json", "w"))
d = json.load(open("a.json")); d["command"] = ["iomoon"]; json.dump(d, open("badcmd.json", "w"))'
err=$("$IOMOON" report badtime.json 2>&1)
like "$?:$err" "^2:iomoon report: badtime\.json: phases\[2\]\.ended is '19:05:32' \(a time as ISO 8601 in UTC is needed" \
	"a results file whose ended is no ISO 8601 time: exit 2 naming it"
err=$("$IOMOON" report badcmd.json 2>&1)
like "$?:$err" "^2:iomoon report: badcmd\.json: \"command\" is a table" "a command that is not a string: exit 2 naming it"

# ---- bad files: exit 2, the file named with what is wrong, nothing written ----
printf 'not json at all' >bad1.json
printf '{"phases": 3}' >bad2.json
python3 -c '
import json; d = json.load(open("a.json")); del d["phases"][0]["lat"]["p99_ns"]; json.dump(d, open("bad3.json", "w"))'
printf '{"iomoon": "0.1.0", "phases": [' >bad4.json
for case in "bad1.json:bad1\\.json: not JSON at line 1" "bad2.json:bad2\\.json: not an iomoon results document" \
	"bad3.json:bad3\\.json: phases\\[1\\]\\.lat\\.p99_ns is missing" "bad4.json:bad4\\.json: not JSON at line 1 \\(the text ends early" \
	"nosuch.json:nosuch\\.json: No such file"; do
	file=${case%%:*} want=${case#*:}
	err=$("$IOMOON" report "$file" --format csv --output out.csv 2>&1)
	is $? 2 "report $file: exit 2"
	like "$err" "^iomoon report: $want" "report $file: names the file and what is wrong"
	[ ! -e out.csv ]; ok $? "report $file: no output file created"
	err=$("$IOMOON" compare a.json "$file" 2>&1)
	is $? 2 "compare a.json $file: exit 2"
done
# hostile values in a results file: exit 2 naming the field, never a Lua traceback
python3 -c '
import json
def bad(name, f):
    d = json.load(open("a.json")); f(d["phases"][0]); json.dump(d, open(name, "w"))
bad("bad5.json", lambda p: p.update(errors=1e308))
bad("bad6.json", lambda p: p.update(intervals=[1, 2]))
bad("bad7.json", lambda p: p["intervals"][0].update(len_s="x"))
bad("bad8.json", lambda p: p.update(ios="x"))
bad("bad10.json", lambda p: p.update(ramp_s="x"))
bad("bad12.json", lambda p: p.update(target=[1]))
bad("hist.json", lambda p: p["read"]["lat"].update(hist={}))
# figures no run has: a negative rate or latency, a fraction of an error
bad("neg1.json", lambda p: p.update(iops=-100))
bad("neg2.json", lambda p: p["lat"].update(p99_ns=-5))
bad("neg3.json", lambda p: p["read"]["lat"].update(mean_ns=-0.5))
bad("neg4.json", lambda p: p["intervals"][0].update(iops=-1))
bad("neg5.json", lambda p: p.update(mb_per_s=-2.5))
bad("frac1.json", lambda p: p["read"].update(errors=0.5))
bad("frac2.json", lambda p: p["write"].update(errors=2.25))
bad("frac3.json", lambda p: p["read"].update(ios=10.5))
# the same in the replay, cluster and interval tables
bad("neg6.json", lambda p: p.update(replay={"missed_ios": -1}))
bad("neg7.json", lambda p: p.update(replay={"on_time_pct": -3.5}))
bad("neg8.json", lambda p: p.update(cluster={"start_skew_ns": -1}))
bad("frac4.json", lambda p: p.update(replay={"due_ios": 2.5}))
bad("frac5.json", lambda p: p["intervals"][0].update(ios=1.5))
# what ran: no time below 0, no fraction of a queue slot or a worker
bad("neg9.json", lambda p: p.update(duration_s=-1))
bad("frac6.json", lambda p: p.update(qd=1.5))
bad("frac7.json", lambda p: p.update(workers=0.5))
bad("frac8.json", lambda p: p.update(quota_ios=2.5))
d = json.load(open("a.json")); d["phases"][0]["iops"] = 12345678.5
open("bad9.json", "w").write(json.dumps(d).replace("12345678.5", "1e999"))
d = json.load(open("a.json")); d["iomoon"] = {"a": 1}; json.dump(d, open("bad11.json", "w"))'
for case in "bad5.json:phases\\[1\\]\\.errors is 1e\\+308 \\(a whole number of 0 or more is needed\\)" \
	"bad6.json:phases\\[1\\]\\.intervals\\[1\\] is a number \\(an object is needed\\)" \
	"bad7.json:phases\\[1\\]\\.intervals\\[1\\]\\.len_s is a string \\(a number is needed\\)" \
	"bad8.json:phases\\[1\\]\\.ios is a string" "bad9.json:not JSON at line 1 \\(a number too large for a double\\)" \
	"bad10.json:phases\\[1\\]\\.ramp_s is a string \\(a number is needed\\)" \
	"bad11.json:\"iomoon\" is a table \\(the version that wrote the file, a string, is needed\\)" \
	"bad12.json:phases\\[1\\]\\.target\\[1\\] is a number \\(a path is needed\\)" \
	"neg1.json:phases\\[1\\]\\.iops is -100 \\(a number of 0 or more is needed\\)" \
	"neg2.json:phases\\[1\\]\\.lat\\.p99_ns is -5 \\(a number of 0 or more is needed\\)" \
	"neg3.json:phases\\[1\\]\\.read\\.lat\\.mean_ns is -0\\.5 \\(a number of 0 or more is needed\\)" \
	"neg4.json:phases\\[1\\]\\.intervals\\[1\\]\\.iops is -1 \\(a number of 0 or more is needed\\)" \
	"neg5.json:phases\\[1\\]\\.mb_per_s is -2\\.5 \\(a number of 0 or more is needed\\)" \
	"frac1.json:phases\\[1\\]\\.read\\.errors is 0\\.5 \\(a whole number of 0 or more is needed\\)" \
	"frac2.json:phases\\[1\\]\\.write\\.errors is 2\\.25 \\(a whole number of 0 or more is needed\\)" \
	"frac3.json:phases\\[1\\]\\.read\\.ios is 10\\.5 \\(a whole number of 0 or more is needed\\)" \
	"neg6.json:phases\\[1\\]\\.replay\\.missed_ios is -1 \\(a whole number of 0 or more is needed\\)" \
	"neg7.json:phases\\[1\\]\\.replay\\.on_time_pct is -3\\.5 \\(a number of 0 or more is needed\\)" \
	"neg8.json:phases\\[1\\]\\.cluster\\.start_skew_ns is -1 \\(a number of 0 or more is needed\\)" \
	"frac4.json:phases\\[1\\]\\.replay\\.due_ios is 2\\.5 \\(a whole number of 0 or more is needed\\)" \
	"frac5.json:phases\\[1\\]\\.intervals\\[1\\]\\.ios is 1\\.5 \\(a whole number of 0 or more is needed\\)" \
	"neg9.json:phases\\[1\\]\\.duration_s is -1 \\(a number of 0 or more is needed\\)" \
	"frac6.json:phases\\[1\\]\\.qd is 1\\.5 \\(a whole number of 0 or more is needed\\)" \
	"frac7.json:phases\\[1\\]\\.workers is 0\\.5 \\(a whole number of 0 or more is needed\\)" \
	"frac8.json:phases\\[1\\]\\.quota_ios is 2\\.5 \\(a whole number of 0 or more is needed\\)"; do
	file=${case%%:*} want=${case#*:}
	for fmt in table html; do
		err=$("$IOMOON" report "$file" --format $fmt --output out.$fmt 2>&1)
		like "$?:$(printf '%s' "$err" | wc -l):$err" "^2:0:iomoon report: $file: $want" \
			"report $file --format $fmt: exit 2, one line naming the field"
		[ ! -e out.$fmt ]; ok $? "report $file --format $fmt: no output file created"
	done
	err=$("$IOMOON" compare "$file" a.json 2>&1)
	like "$?:$(printf '%s' "$err" | wc -l):$err" "^2:0:iomoon compare: $file: $want" \
		"compare $file a.json: exit 2, one line naming the field"
done
"$IOMOON" report hist.json --format fio-json >hist.fio.json 2>hist.err
is "$?:$(cat hist.err)" "0:" "fio-json of a file whose latency carries a \"hist\" object: no traceback (a file has no histogram)"
err=$("$IOMOON" report a.json --format nosuch 2>&1)
is $? 2 "report --format nosuch: exit 2"
like "$err" "--format: 'nosuch' is not a format here \\(table, csv, json, analyzer, markdown, html, fio-json, fio-json\\+, fio-terse\\)" "report --format nosuch: lists the formats"
err=$("$IOMOON" report a.json --output a.json 2>&1)
is $? 2 "report --output naming its own input: exit 2"
is "$err" "iomoon report: --output: 'a.json' is the results file (a.json); the report would replace it" \
	"report --output naming its own input: calls it the results file"
cmp -s r.json a.json; ok $? "report --output naming its input leaves the input as it was"
for ab in "A a.json" "B ./b.json"; do
	cp b.json b.keep
	err=$("$IOMOON" compare a.json b.json --output "${ab#* }" 2>&1)
	like "$?:$err" "^2:iomoon compare: --output: '${ab#* }' is the results file ${ab% *} \\([ab]\\.json\\); the report would replace it$" \
		"compare --output naming input ${ab% *}: exit 2, calls it the results file ${ab% *}"
	cmp -s r.json a.json && cmp -s b.keep b.json; ok $? "... both inputs left as they were"
done
rm -f b.keep

# ---- compare: A against B (service time doubled), and A against itself ----
"$IOMOON" compare a.json b.json --format json >ab.json
is $? 0 "compare --format json: exit 0"
out=$(python3 -c '
import json
d = json.load(open("ab.json")); a = json.load(open("a.json"))["phases"][0]
p = {x["name"]: x for x in d["phases"]}
m = p["p1"]["metrics"]
cpu = (a["cpu"]["user_s"] + a["cpu"]["sys_s"]) / a["ios"] * 1e6
print(sorted(p), d["only_a"], d["only_b"], 0.35 < m["iops"]["ratio"] < 0.75, m["iops"]["differs"], m["iops"]["rule"],
      m["p50"]["ratio"] > 1.5, m["p50"]["differs"], abs(m["cpu_per_io"]["a"] - cpu) < 1e-9 * cpu)')
is "$out" "['mixed', 'p1'] ['onlyA'] ['onlyB'] True True spread True True True" \
	"compare: p1 matched, IOPS ratio B/A about 0.5 (0.35 to 0.75) and marked (spread rule), p50 up and marked, CPU us/IO = (user+sys)/ios, onlyA and onlyB named"
"$IOMOON" compare a.json a.json --format json >aa.json
out=$(python3 -c '
import json
d = json.load(open("aa.json"))
print(len(d["phases"]), all(v.get("ratio", 1) == 1 and not v["differs"] and "change" not in v
      for p in d["phases"] for v in p["metrics"].values()), d["only_a"], d["only_b"], d["warnings"],
      sorted(d["phases"][0]["metrics"]))')
is "$out" "3 True [] [] [] ['cpu_per_io', 'errors', 'iops', 'mb_per_s', 'p50', 'p99', 'p999']" \
	"compare of a run with itself: every ratio 1, nothing marked, no phase alone, no warning"
out=$("$IOMOON" compare a.json b.json)
like "$out" "only in A \\(a\\.json\\): onlyA" "compare table: says which phase is only in A"
like "$out" "only in B \\(b\\.json\\): onlyB" "compare table: says which phase is only in B"
like "$out" "p1 +IOPS +[0-9.]+ +[0-9.]+ +0\\.[0-9]+ +worse +spread" "compare table: p1's IOPS row: A, B, ratio, worse"
out=$("$IOMOON" compare a.json b.json --format csv)
like "$out" '"Test name","Metric","A","B","B/A","Change","Rule"' "compare csv: the header"
like "$out" '"onlyB","only in B"' "compare csv: a phase only in B is a row"
out=$("$IOMOON" compare a.json b.json --format markdown)
like "$out" "\\| p1 \\| IOPS \\| [0-9.]+ \\| [0-9.]+ \\| 0\\.[0-9]+ \\| \\*\\*worse\\*\\* \\| spread \\|" "compare markdown: p1's IOPS row, worse in bold"
"$IOMOON" compare a.json b.json --format markdown --output ab.md
grep -q "| p1 | IOPS |" ab.md; ok $? "compare --output writes the file"
"$IOMOON" compare a.json b.json --format html --output ab.html
is $? 0 "compare --format html: exit 0"
grep -q '<table class="sum" id="compare">' ab.html && grep -q '<td>p1</td><td>IOPS</td>' ab.html
ok $? "compare --format html: the comparison table, a row per phase and figure"
is "$(grep -o '"name":"p1 \[[AB]\]"' ab.html | sort | tr '\n' ' ')" '"name":"p1 [A]" "name":"p1 [B]" ' \
	"compare --format html: both runs' p1 in the charts' data, as p1 [A] and p1 [B]"
# a phase with trouble in one run: said beside its figures
"$IOMOON" run --quiet --format json --output u.json "$LUA_DIR/unmet.lua"
out=$("$IOMOON" compare a.json u.json)
like "$out" "p1 in B: rate not met: [0-9]+ of 5000 IOPS" "compare table: an unmet rate in B is said"
like "$out" "B: u\\.json \\(iomoon [^)]*, 1 phase, measured [^)]*\\)" "compare table: a run of one phase is \"1 phase\", not \"1 phases\""
out=$("$IOMOON" compare a.json u.json --format csv)
like "$out" '"p1","status in B","rate not met' "compare csv: a status row"
err=$("$IOMOON" compare a.json b.json --format analyzer 2>&1)
is $? 2 "compare --format analyzer: exit 2"
like "$err" "not a format here \\(table, csv, markdown, json, html\\)" "compare --format analyzer: lists compare's formats"
err=$("$IOMOON" compare a.json 2>&1)
is $? 2 "compare with one file: exit 2"

# ---- one format per metric: A and B alike, never an exponent ----
python3 -c '
import json
for name, p50, mb, iops in (("fa.json", 82, 2167.9, 529271.4), ("fb.json", 1234567, 5.5, 99.6)):
    d = json.load(open("a.json")); p = d["phases"][0]
    p["lat"]["p50_ns"], p["mb_per_s"], p["iops"] = p50, mb, iops
    json.dump(d, open(name, "w"))'
out=$("$IOMOON" compare fa.json fb.json --format csv | python3 -c '
import csv, sys
print(" ".join("%s=%s/%s" % (r[1], r[2], r[3]) for r in csv.reader(sys.stdin) if r[0] == "p1" and r[1] in ("IOPS", "MB/s", "p50 ms")))')
is "$out" "IOPS=529271/100 MB/s=2167.90/5.50 p50 ms=0.0001/1.2346" \
	"compare: each metric in its one format in A and B (IOPS whole, MB/s 2 decimals, ms 4), no exponent"
like "$("$IOMOON" compare fa.json fb.json)" "p1 +p50 ms +0\\.0001 +1\\.2346 " "compare table: the same figures"

# ---- which way a change went: better or worse, in every format ----
out=$(python3 -c '
import json
m = {p["name"]: p for p in json.load(open("ab.json"))["phases"]}["p1"]["metrics"]
print(m["iops"]["change"], m["mb_per_s"]["change"], m["p50"]["change"], m["errors"]["rule"], "change" in m["errors"])')
is "$out" "worse worse worse count False" "compare A (1 ms) with B (2 ms): IOPS, MB/s and p50 are worse; errors equal, unmarked"
"$IOMOON" compare b.json a.json --format json >ba.json
out=$(python3 -c '
import json
p = {p["name"]: p for p in json.load(open("ba.json"))["phases"]}["p1"]
m = p["metrics"]
print(m["iops"]["change"], m["p50"]["change"], p["better"] >= 3, json.load(open("ba.json"))["metrics"][0]["better"])')
is "$out" "better better True higher" "compare B with A: IOPS and p50 are better (higher IOPS, lower latency); metrics say which way is better"
like "$("$IOMOON" compare b.json a.json)" "p1 +p50 ms +[0-9.]+ +[0-9.]+ +0\\.[0-9]+ +better +spread" "compare table: a lower p50 is better"
like "$("$IOMOON" compare b.json a.json --format csv)" '"p1","IOPS","[0-9.]+","[0-9.]+","[0-9.]+","better","spread"' "compare csv: better"
"$IOMOON" compare a.json b.json --format html --output ab.html
grep -q '<tr class="worse"><td>p1</td><td>IOPS</td><td>[0-9.]*</td><td>[0-9.]*</td><td>0\.[0-9]*</td><td class="worse">worse</td>' ab.html
ok $? "compare html: a worse row and its Change cell classed worse"
grep -q '#compare tr.worse td{background:#fde2e2}' ab.html && grep -q '#compare tr.better td{background:#e3f4e1}' ab.html
ok $? "compare html: worse rows red, better rows green"
# errors: more is worse, any difference counts
python3 -c '
import json; d = json.load(open("a.json")); d["phases"][0]["errors"] = 5; d["phases"][0]["read"]["errors"] = 5
json.dump(d, open("errs.json", "w"))'
out=$("$IOMOON" compare a.json errs.json --format json | python3 -c '
import json, sys; e = json.load(sys.stdin)["phases"][0]["metrics"]["errors"]; print(e["a"], e["b"], e["change"], e["rule"])')
is "$out" "0 5 worse count" "compare: 0 errors in A, 5 in B: worse (rule count)"

# ---- the spread rule never hides a change larger than the spread itself ----
# p99 (ms) per interval and over the run, in A and in B, the rest as in a.json
mk() {
	python3 - "$@" <<'PY'
import json, sys
out, ivs, p99 = sys.argv[1], [float(x) for x in sys.argv[2].split(",")], float(sys.argv[3])
d = json.load(open("a.json")); p = d["phases"][0]
p["intervals"] = [dict(p["intervals"][i % len(p["intervals"])], p99_ns=v * 1e6) for i, v in enumerate(ivs)]
p["lat"]["p99_ns"] = p99 * 1e6
json.dump(d, open(out, "w"))
PY
}
p99_of() { "$IOMOON" compare "$1" "$2" --format json | python3 -c '
import json, sys; m = json.load(sys.stdin)["phases"][0]["metrics"]["p99"]; print(m["differs"], m.get("change"), m["rule"])'; }
# two intervals each: 1.1 ms against 1.7 ms, more than either run's spread (0.14 and 0.57 ms)
# but less than two standard errors (0.82 ms)
mk cap-a.json 1.0,1.2 1.1; mk cap-b.json 1.3,2.1 1.7
is "$(p99_of cap-a.json cap-b.json)" "True worse spread" "p99 1.1 -> 1.7 ms, beyond both runs' interval spread: marked worse (2 standard errors capped at the spread)"
# ten intervals each; B's p99 four times A's, one interval of B 31 ms: its spread is larger than the change
mk four-a.json 1,1,1,1,1,1,1,1,1,1 1; mk four-b.json 1,1,1,1,1,1,1,1,1,31 4
is "$(p99_of four-a.json four-b.json)" "True worse factor" "p99 4x (1 -> 4 ms) with one 31 ms interval in B: marked worse (rule factor)"
is "$(p99_of four-b.json four-a.json)" "True better factor" "... and the other way round: better"
like "$("$IOMOON" compare four-a.json four-b.json)" "p1 +p99 ms +1\\.0000 +4\\.0000 +4\\.000 +worse +factor" "compare table: the 4x p99 row says worse, rule factor"

# ---- warnings: the machines differed in load, kernel, target ----
python3 - <<'PY'
import json
for name, other, kernel, dev, model in (("w-a.json", 27, None, "/dev/sdb", "Disk A"), ("w-b.json", 85, "9.9.9-test", "/dev/sdc", "Disk B")):
    d = json.load(open("a.json"))
    for p in d["phases"]:
        p["cpu"]["other_pct"] = other
        for s in p.get("streams", []): s["cpu"]["other_pct"] = other
    if kernel: d["machine"]["kernel"] = kernel
    d["phases"][0]["target"] = dev
    d["machine"]["targets"] = [{"path": dev, "kind": "block", "size": 2 ** 40, "device": dev, "model": model}]
    json.dump(d, open(name, "w"))
d = json.load(open("w-a.json"))
for p in d["phases"]: del p["cpu"]["other_pct"]; p["cpu"].update(util_pct=30, user_s=0, sys_s=0)
json.dump(d, open("old-a.json", "w"))
for p in d["phases"]: p["cpu"].update(util_pct=90)
json.dump(d, open("old-b.json", "w"))
PY
kernel=$(python3 -c 'import json; print(json.load(open("a.json"))["machine"]["kernel"])')
out=$("$IOMOON" compare w-a.json w-b.json 2>w.err)
like "$out" "warning: the machines were not as busy with other work: 27 % of the CPUs in A, 85 % in B" "compare table: warns that the machines were not as busy with other work"
like "$out" "warning: the kernel differs: $kernel in A, 9\\.9\\.9-test in B" "compare table: warns that the kernel differs"
like "$out" "warning: the target differs \\(p1\\): /dev/sdb \\(block, 1 TiB, on /dev/sdb, Disk A\\) in A, /dev/sdc \\(block, 1 TiB, on /dev/sdc, Disk B\\) in B" \
	"compare table: warns that p1 ran on another device"
is "$(cat w.err)" "" "compare table on stdout: the warnings are in the table, not also on stderr"
"$IOMOON" compare w-a.json w-b.json --format json >w.json 2>w.err
is "$(python3 -c 'import json; print(len(json.load(open("w.json"))["warnings"]))'):$(grep -c '^iomoon compare: warning: ' w.err)" "3:3" \
	"compare json: the three warnings in \"warnings\", and on stderr"
like "$("$IOMOON" compare w-a.json w-b.json --format csv 2>/dev/null)" '"","warning","the kernel differs: ' "compare csv: a warning row"
python3 -c 'import json; d = json.load(open("w-a.json")); d["machine"]["cores"] = 64; json.dump(d, open("w-c.json", "w"))'
like "$("$IOMOON" compare w-a.json w-c.json 2>/dev/null)" "warning: the number of cores differs: [0-9]+ in A, 64 in B" "compare table: warns that the number of cores differs"
like "$("$IOMOON" compare w-a.json w-b.json --format markdown 2>/dev/null)" '\*\*warning: the machines were not as busy' "compare markdown: the warnings in bold"
"$IOMOON" compare w-a.json w-b.json --format html --output w.html 2>/dev/null
grep -q '<p class="warn">warning: the target differs (p1)' w.html; ok $? "compare html: the warnings above the table"
like "$("$IOMOON" compare old-a.json old-b.json)" "warning: the machines were not as busy with other work: 30 % of the CPUs in A, 90 % in B" \
	"files without cpu.other_pct (an older iomoon's): the load told from util_pct less iomoon's own CPU time"

# ---- pairs: --pair A=B, --pair-by position; nothing to compare is bad input ----
out=$("$IOMOON" compare a.json b.json --pair onlyA=onlyB --format json | python3 -c '
import json, sys; d = json.load(sys.stdin)
print([(p["name"], p["name_a"], p["name_b"]) for p in d["phases"]], d["only_a"], d["only_b"])')
is "$out" "[('p1', 'p1', 'p1'), ('onlyA=onlyB', 'onlyA', 'onlyB'), ('mixed', 'mixed', 'mixed')] [] []" \
	"--pair onlyA=onlyB: the two phases compared, in A's order, the rest by name"
like "$("$IOMOON" compare a.json b.json --pair=onlyA=onlyB)" "onlyA=onlyB +IOPS " "--pair=A=B: the pair's row, named A=B"
out=$("$IOMOON" compare a.json b.json --pair-by position --format json | python3 -c '
import json, sys; d = json.load(sys.stdin); print([p["name"] for p in d["phases"]], d["only_a"], d["only_b"])')
is "$out" "['p1', 'onlyA=onlyB', 'mixed'] [] []" "--pair-by position: the k-th phase of A with the k-th of B"
python3 -c '
import json; d = json.load(open("b.json"))
for i, p in enumerate(d["phases"]): p["name"] = "other %d" % i
json.dump(d, open("renamed.json", "w"))'
err=$("$IOMOON" compare a.json renamed.json --format csv --output none.csv 2>&1)
like "$?:$err" "^2:iomoon compare: nothing to compare: no phase of renamed\\.json has the name of one of a\\.json \\(a\\.json: 'p1', 'onlyA', 'mixed'; renamed\\.json: 'other 0', 'other 1', 'other 2'\\); pair them with --pair A=B or --pair-by position" \
	"no phase in common and no pair: exit 2, saying how to pair"
[ ! -e none.csv ]; ok $? "... and no output file"
is "$("$IOMOON" compare a.json renamed.json --pair-by position --format json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["phases"]))')" 3 \
	"... by position they compare"
err=$("$IOMOON" compare a.json b.json --pair onlyX=onlyB 2>&1)
like "$?:$err" "^2:iomoon compare: --pair: 'onlyX' is not a phase of a\\.json \\(the nearest is 'onlyA'\\)" "--pair naming no phase of A: exit 2 with the nearest name"
err=$("$IOMOON" compare a.json b.json --pair onlyA=zzz 2>&1)
like "$?:$err" "^2:iomoon compare: --pair: 'zzz' is not a phase of b\\.json \\(its phases: 'p1', 'onlyB', 'mixed'\\)" "--pair naming no phase of B, none near: exit 2 listing B's phases"
err=$("$IOMOON" compare a.json b.json --pair onlyA 2>&1)
like "$?:$err" "^2:iomoon compare: --pair: 'onlyA' is not A=B" "--pair without =: exit 2"
err=$("$IOMOON" compare a.json b.json --pair-by size 2>&1)
like "$?:$err" "^2:iomoon compare: --pair-by: 'size' is not a way to pair phases \\(name or position\\)" "--pair-by size: exit 2"

# ---- the definition: command-line overrides, rerun ----
"$IOMOON" quick --engine sim --qd 7 --time 0.2 --seed 42 --quiet --format json --output q.json
out=$(python3 -c '
import json; r = json.load(open("q.json"))["phases"][0]; d = r["definition"]
print(d["qd"], d["seed"], d["engine"], d["duration"], r["engine_asked"], d["bs"], d["read"], d["random"])')
is "$out" "7 42 sim 0.2 sim 4k 100 100" "quick --qd 7 --seed 42: the definition holds the options as given"

"$IOMOON" rerun a.json --quiet --format json --output ra.json
is $? 0 "rerun a.json: exit 0"
out=$(python3 -c '
import json
a = json.load(open("a.json"))["phases"]; b = json.load(open("ra.json"))["phases"]
print([p["name"] for p in b] == [p["name"] for p in a] == ["p1", "onlyA", "mixed"],
      [p["definition"] for p in b] == [p["definition"] for p in a],
      [p.get("meta") for p in b] == [p.get("meta") for p in a], b[0]["ios"] > 0)')
is "$out" "True True True True" "rerun: the same phases (names, definitions, meta) ran again"

F1="$TMP/f1.dat" F2="$TMP/f2.dat"
"$IOMOON" quick --engine psync --target "$F1" --size 1m --time 0.2 --bs 4k --quiet --format json --output f.json
is $? 0 "a run on a file in \$TMP"
"$IOMOON" rerun f.json --target "$F2" --quiet --format json --output f2.json
is $? 0 "rerun --target a new path: exit 0"
[ -f "$F2" ] && [ "$(stat -c %s "$F2")" = 1048576 ]; ok $? "rerun --target: the new file was made, 1 MiB as the saved definition says"
out=$(F2="$F2" python3 -c '
import json, os
a = json.load(open("f.json"))["phases"][0]; b = json.load(open("f2.json"))["phases"][0]
da, db = dict(a["definition"]), dict(b["definition"])
ta, tb = da.pop("target"), db.pop("target")
print(b["target"] == os.environ["F2"], tb["path"] == os.environ["F2"], tb["size"] == ta["size"], da == db)')
is "$out" "True True True True" "rerun --target: the phase ran on the new path, the rest of the definition unchanged"
# several targets and one --target: refused before anything runs
"$IOMOON" run --quiet --format json --output t.json "$LUA_DIR/two-targets.lua" "$F1" "$TMP/f3.dat"
err=$("$IOMOON" rerun t.json --target "$TMP/f4.dat" --format json --output t4.json 2>&1)
is $? 2 "rerun --target of a phase on two targets: exit 2"
like "$err" "^iomoon rerun: --target: phase 1 \\('two'\\) ran on 2 targets" "rerun --target of two targets: says why"
[ ! -e "$TMP/f4.dat" ] && [ ! -e t4.json ]; ok $? "rerun refused: no target and no report created"
# every phase is checked before the first runs: a bad second phase stops the rerun before the first
python3 -c '
import json; d = json.load(open("a.json")); d["phases"][1]["definition"]["qd"] = 0; json.dump(d, open("bad5.json", "w"))'
err=$("$IOMOON" rerun bad5.json --format json --output r5.json 2>&1)
is $? 2 "rerun with a bad definition in phase 2: exit 2"
like "$err" "phase.qd: 0 is out of range.*bad5\\.json, phase 2 of 3: onlyA" "rerun: the bad field and phase are named"
[ ! -e r5.json ]; ok $? "rerun: no phase ran (no report written) when one phase does not check"
python3 -c '
import json; d = json.load(open("a.json")); del d["phases"][0]["definition"]; json.dump(d, open("bad6.json", "w"))'
err=$("$IOMOON" rerun bad6.json 2>&1)
is $? 2 "rerun of a file without definitions: exit 2"
like "$err" "bad6\\.json: phase 1 \\('p1'\\) has no definition" "rerun without a definition: says so"
python3 -c '
import json; d = json.load(open("a.json")); d["phases"][0]["definition"]["streams"] = [1]; json.dump(d, open("bad7s.json", "w"))'
for extra in "" "--target $TMP/f7.dat"; do
	err=$("$IOMOON" rerun bad7s.json $extra --format json --output r7.json 2>&1)
	like "$?:$(printf '%s' "$err" | wc -l):$err" "^2:0:iomoon rerun: phase\\.streams\\[1\\]: a number is not a stream" \
		"rerun of a definition whose stream is a number ${extra:+(with --target)}: exit 2 naming it, no traceback"
done
[ ! -e r7.json ] && [ ! -e "$TMP/f7.dat" ]; ok $? "... nothing written"
python3 -c '
import json; d = json.load(open("a.json")); d["phases"][0]["definition"] = "x"; json.dump(d, open("bad8s.json", "w"))'
err=$("$IOMOON" rerun bad8s.json 2>&1)
like "$?:$err" "^2:iomoon rerun: bad8s\\.json: phases\\[1\\]\\.definition is a string \\(an object is needed" \
	"rerun of a definition that is a string: says so (not 'has no definition')"

# a replay: the trace object is saved as its file, format and record count, and loaded again
python3 - "$TMP/t.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("fio version 3 iolog\n0 d add\n0 d open\n")
    for i in range(200):
        f.write("%d d %s %d 4096\n" % (i * 500, "write" if i % 4 == 0 else "read", (i * 31 % 256) * 4096))
    f.write("100000 d close\n")
PY
"$IOMOON" replay t.log --target "$TMP/rp.dat" --speed 2 --quiet --format json --output rp.json
is $? 0 "a replay saved as JSON"
mkdir elsewhere && (cd elsewhere && "$IOMOON" rerun ../rp.json --quiet --format json --output ../rp2.json)
is $? 0 "rerun of a replay, from another directory: exit 0"
out=$(TMPD="$TMP" python3 -c '
import json, os
a = json.load(open("rp.json"))["phases"][0]; b = json.load(open("rp2.json"))["phases"][0]
da, db = a["definition"], b["definition"]
ta, tb = da.pop("target"), db.pop("target")
print(da["replay"]["trace"] == {"trace": os.path.realpath(os.environ["TMPD"] + "/t.log"), "format": "iolog3", "records": 200},
      da == db, tb["path"] == ta["path"], b["replay"]["ios"] == a["replay"]["ios"] == 200)')
is "$out" "True True True True" "rerun of a replay: the trace by its absolute path, format and records; the same definition; the same 200 I/Os"
echo "100500 d read 0 4096" >>t.log
err=$("$IOMOON" rerun rp.json --format json --output rp3.json 2>&1)
is $? 2 "rerun of a replay whose trace changed: exit 2"
like "$err" "has 201 records now, 200 when it ran" "rerun of a changed trace: says so"
[ ! -e rp3.json ]; ok $? "rerun of a changed trace: no report written"

# ---- the machine ----
out=$(F1="$F1" python3 -c '
import json, os, platform
m = json.load(open("f.json"))["machine"]
t = m["targets"][0]
print(m["cores"], m["kernel"] == platform.release(), m["hostname"] == platform.node(), m["memory_bytes"] > 2**26,
      bool(m["cpu_model"]), m["iomoon"], t["path"] == os.environ["F1"], t["kind"], t["size"], bool(t.get("filesystem")))' )
is "$out" "$(nproc) True True True True $("$IOMOON" --version | cut -d' ' -f2) True file 1048576 True" \
	"machine: cores = nproc, kernel, hostname, memory, cpu model, version; the target's kind, size and file system"
os=$(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release)
is "$(python3 -c 'import json; print(json.load(open("f.json"))["machine"]["os"])')" "$os" "machine: os is PRETTY_NAME of /etc/os-release"

# a URL given to iomoon.machine keeps no password (as a definition keeps none)
is "$("$IOMOON" run "$LUA_DIR/machine-urls.lua" | tr '\n' ' ')" "nbd://u@h/x iscsi://user@h/iqn.x/0 " "iomoon.machine: a URL's password is left out"

done_testing
