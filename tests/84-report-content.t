#!/bin/bash
# What the reports show (issue 25, doc/reports.md): sync and trim latency
# (and the writes of a target opened O_DSYNC) as rows of their own under
# their phase or stream in the table, Markdown and HTML: the commit latency
# of a WAL; how faithful a replay was (on time, lag p99, records replayed,
# missed and cut) in the table, Markdown, CSV and HTML, and its lag per
# interval; how a phase ran (engine, O_DIRECT, test area) in a line above
# the table, and the HTML machine in human units and names; CSV columns of
# what a row asked (access spec, block size, read and random shares), a
# direction a row neither did nor asked left empty, time headers' units.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

# ---- syncs and trims: a row of their own under their phase ----
"$IOMOON" run --quiet --format json --output d.json "$LUA_DIR/durable.lua" "$TMP/d.dat"
is $? 0 "a WAL with fdatasync, a phase that trims, a plain one: exit 0"
"$IOMOON" report d.json >d.table
# want: the figures the JSON holds, as the table must show them
python3 - d.json >want.table <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"]
def ms(ns): return "%.3f" % (ns / 1e6)
s = p[0]["sync"]
print("  fdatasync after every write|%s|%.0f|-|-|%s|-|max %s ms, 200 syncs" % (ms(s["lat"]["mean_ns"]), s["iops"], ms(s["lat"]["p99_ns"]), ms(s["lat"]["max_ns"])))
c = p[0]["commit"] # each write and its own fdatasync as one: the commit
print("  commit: write + fdatasync|%s|%.0f|-|-|%s|-|max %s ms, 200 commits" % (ms(c["lat"]["mean_ns"]), c["iops"], ms(c["lat"]["p99_ns"]), ms(c["lat"]["max_ns"])))
t = p[1]["trim"]
print("  trims|%s|%.0f|%.2f|-|%s|-|max %s ms, %d trims" % (ms(t["lat"]["mean_ns"]), t["iops"], t["mib_per_s"], ms(t["lat"]["p99_ns"]), ms(t["lat"]["max_ns"]), t["ios"]))
PY
got=$(awk 'substr($0, 1, 2) == "  " && !/O_DSYNC/ { n = substr($0, 1, 36); sub(/ +$/, "", n); rest = substr($0, 37); split(rest, f, "  +");
	printf "%s|%s|%s|%s|%s|%s|%s|%s\n", n, f[2], f[3], f[4], f[5], f[6], f[7], f[8] }' d.table)
is "$got" "$(cat want.table)" "table: the WAL's fdatasync, its commit (write + fdatasync) and the trims, each a row under its phase: mean, IOPS, (trim MiB/s), p99, max and count"
is "$(grep '^Test name' d.table | sed -E 's/ +$//' | wc -c)" "$(grep '^  fdatasync' d.table | sed -E 's/  max .*//' | wc -c)" \
	"table: the sync row ends its p99 where the header ends (aligned)"
is "$(grep -v '^engine ' d.table | sed -E 's/^(.{36}).*/\1/; s/ +$//' | tr '\n' '|')" "Test name|wal|  fdatasync after every write|  commit: write + fdatasync|trim|  trims|plain|log|  writes with O_DSYNC|" \
	"table: a row each, the sync and trim rows right under theirs, none for the plain phase"
md=$("$IOMOON" report d.json --format markdown)
like "$md" '\| wal: fdatasync after every write \| [0-9]+ \| - \| [0-9.]+ \| [0-9.]+ \| - \| - \| 0 \| max [0-9.]+ ms, 200 syncs \|' \
	"markdown: the WAL's fdatasync row (IOPS, mean, p99; max and count)"
like "$md" '\| trim: trims \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| - \| - \| 0 \| max [0-9.]+ ms, [0-9]+ trims \|' "markdown: the trims' row"
is "$(printf '%s\n' "$md" | grep -c '^| plain')" 1 "markdown: the plain phase is one row"
like "$(grep '^  writes with O_DSYNC' d.table)" '^  writes with O_DSYNC +[0-9.]+ +[0-9]+ +[0-9.]+ +- +[0-9.]+ +-  max [0-9.]+ ms, 50 writes$' \
	"table: a log opened O_DSYNC says its writes are its commits (their mean, IOPS, MiB/s, p99, max, count)"
"$IOMOON" report d.json --format html >d.html
grep -Eq '<tr class="op sync"><td class="n"><a href="#phase-1">wal: fdatasync after every write</a>' d.html
ok $? "html: the summary's fdatasync row under the WAL"
grep -Eq '<tr class="op trim"><td class="n"><a href="#phase-2">trim: trims</a>' d.html; ok $? "html: the trims' row"

# ---- replay fidelity: on time, lag p99, records replayed, in every format ----
"$IOMOON" run --quiet --format json --output r.json "$LUA_DIR/replay.lua" "$TMP/t.log"
is $? 0 "three replays (to the end, cut, no stall): exit 0"
python3 - r.json >want.replay <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["phases"]:
    r = p["replay"]
    print("  replay: %d of %d records, %.2f %% on time, lag p99 %.3f ms (missed %d, cut %d)" % (
        r["ios"], r["planned_ios"], r["on_time_pct"], r["lag_p99_ns"] / 1e6, r["missed_ios"], r["cut_ios"]))
PY
"$IOMOON" report r.json >r.table
is "$(grep '^  replay: ' r.table)" "$(cat want.replay)" "table: a line under each replay: records replayed of planned, on time, lag p99 ms, missed and cut"
is "$(sed -n 4p r.table | cut -c1-10)$(grep -c '^  replay: ' d.table)" "  replay: 0" "table: the line right under its row; none under phases that replay nothing"
"$IOMOON" report r.json --format markdown >r.md
like "$(grep -m1 '^| Test name' r.md)" '\| Status \| Replay on time \| Replay lag p99 ms \| Records replayed \|$' "markdown: three replay columns after the status"
python3 - r.json r.md <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
rows = [l.split(" | ") for l in open(sys.argv[2]).read().splitlines() if l.startswith("|")][2:]
for p, row in zip(ph, rows):
    r = p["replay"]
    want = ["%.2f %%" % r["on_time_pct"], "%.3f" % (r["lag_p99_ns"] / 1e6),
            "%d of %d (missed %d, cut %d) |" % (r["ios"], r["planned_ios"], r["missed_ios"], r["cut_ios"])]
    assert row[-3:] == want, (row, want)
PY
ok $? "markdown: each replay's on time %, lag p99 ms and records (missed, cut), as its JSON says"
"$IOMOON" report r.json --format csv >r.csv
python3 - r.json r.csv <<'PY'
import csv, json, sys
ph = json.load(open(sys.argv[1]))["phases"]
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
for p, row in zip(ph, rows):
    r = p["replay"]
    got = [row[k] for k in ("Replay On Time %", "Replay Lag p50 (ms)", "Replay Lag p99 (ms)", "Replay Lag Max (ms)", "Replay Issued", "Replay Missed", "Replay Cut")]
    want = ["%.2f" % r["on_time_pct"]] + ["%.4f" % (r[k] / 1e6) for k in ("lag_p50_ns", "lag_p99_ns", "lag_max_ns")] + [str(r[k]) for k in ("ios", "missed_ios", "cut_ios")]
    assert got == want, (got, want)
PY
ok $? "csv: on time %, the lag's p50, p99 and max in ms, issued, missed and cut"
# the sampler's lag per interval (intervals[i].lag_p99_ns, lag_max_ns)
python3 - r.json d.json <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
for p in ph:
    iv = p["intervals"]
    assert len(iv) >= 1 and all("lag_p99_ns" in i and "lag_max_ns" in i for i in iv), p["name"]
    assert all(i["lag_p99_ns"] <= i["lag_max_ns"] for i in iv), p["name"]
    # every record was submitted in some interval: their maxima reach the phase's p99
    assert max(i["lag_max_ns"] for i in iv) >= p["replay"]["lag_p99_ns"], p["name"]
assert all(i["lag_max_ns"] == 0 for i in ph[2]["intervals"]), "no stall: every lag 0"
for p in json.load(open(sys.argv[2]))["phases"]:
    assert not any("lag_p99_ns" in i for i in p["intervals"]), p["name"]
PY
ok $? "json: a replay's every interval has its lag p99 and max (0 without stalls, reaching the phase's p99); no other phase's has"

# ---- how it ran: engine, O_DIRECT, test area above the table; the machine in human units ----
where=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["machine"]["targets"][0]; print(" on %s" % t["filesystem"] + (" (%s)" % t["device"] if "device" in t else ""))' d.json)
is "$(sed -n 1p d.table)" "engine psync, O_DIRECT, test area $TMP/d.dat: 4 MiB file$where" \
	"table: the line above the header says the engine, O_DIRECT and the test area (size, kind, file system, device)"
is "$(grep -n '^engine ' d.table | cut -d: -f1 | tr '\n' ' ')" "1 8 10 " "table: a setup line again where the engine changes (sim: no target), and back"
like "$(sed -n 8p d.table)" '^engine sim, no target$' "table: a phase on sim says it has no target (and no O_DIRECT)"
python3 - d.json nomachine.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("machine"); json.dump(d, open(sys.argv[2], "w"))
PY
is "$("$IOMOON" report nomachine.json | sed -n 1p)" "engine psync, O_DIRECT, test area $TMP/d.dat" "table: a results file without its machine names the path alone"
"$IOMOON" quick --engine psync --buffered --target "$TMP/b.dat" --size 2m --ios 10 --quiet >b.table
is "$(sed -n 1p b.table | cut -d, -f1-2)" "engine psync, buffered (page cache)" "table: buffered I/O says so"
m=$(sed -n '/<h2>The machine<\/h2>/,/<h2>Latency/p' d.html)
like "$m" '<tr><td>Memory</td><td>[0-9.]+ GiB</td></tr>' "html: memory in GiB"
like "$m" '<tr><td>CPU</td><td>[^<]*, [0-9]+ cores?</td></tr>' "html: the CPU with its cores"
like "$m" '<tr><td>Engine</td><td>psync \(3 phases\), sim \(1 phase\)</td></tr><tr><td>I/O</td><td>O_DIRECT \(all 3 phases\)</td></tr>' "html: the engines and O_DIRECT, per phase"
like "$m" '<tr><td class="n">[^<]*/d\.dat</td><td class="n">file</td><td class="n">4 MiB</td><td class="n">[a-z0-9]+</td>' "html: the targets' table: path, kind, test area, file system"
printf '%s' "$m" | grep -Eq 'memory_bytes|targets\.1\.|[0-9]{9}'; ok $((!$?)) "html: no raw keys, no byte counts"

# ---- CSV: what each row asked, a direction it did not do left empty, every time with its unit ----
"$IOMOON" run --quiet --format csv --output c.csv "$LUA_DIR/csv.lua"
is $? 0 "a mix, a named access spec, a read-only and a write-only phase: exit 0"
csv_cells() { # csv_cells FILE ROW-NAME COLUMN...: the cells of a row, joined by |
	python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print("\n".join("|".join(r[c] for c in sys.argv[3:]) for r in rows if r["Access Specification Name"] == sys.argv[2]))' "$@"
}
A=('Access Spec (as asked)' 'Block Size (bytes)' 'Read %' 'Random %')
is "$(csv_cells c.csv mix "${A[@]}")" '60% 4k_70%Read_100%Random + 40% 8k/64k_0%Read_0%Random|4096/8192/65536|42|60' \
	"csv: a mix's specs with their weights, its block sizes, its read and random shares weighed (0.6 x 70, 0.6 x 100)"
is "$(csv_cells c.csv exchange "${A[@]}")" '8k_55%Read_80%Random|8192|55|80' "csv: the access spec as the phase named it (meta.spec)"
is "$(csv_cells c.csv reads "${A[@]}")" '4k_100%Read_0%Random|4096|100|0' "csv: a plain phase's spec from its bs, read and random"
W=('Write IOps' 'Write MBps (Binary)' 'Write MBps (Decimal)' 'Average Write Response Time (ms)' 'Maximum Write Response Time (ms)' 'Write Errors' 'Bytes Written' 'Write I/Os')
R=('Read IOps' 'Read MBps (Binary)' 'Read MBps (Decimal)' 'Average Read Response Time (ms)' 'Maximum Read Response Time (ms)' 'Read Errors' 'Bytes Read' 'Read I/Os')
is "$(csv_cells c.csv reads "${W[@]}")" '|||||||' "csv: a read-only row leaves every write column empty (not 0.0000)"
is "$(csv_cells c.csv writes "${R[@]}")" '|||||||' "csv: a write-only row leaves every read column empty"
like "$(csv_cells c.csv reads "${R[@]}")" '^[0-9.]+\|[0-9.]+\|[0-9.]+\|[0-9.]+\|[0-9.]+\|0\|2048000\|500$' "csv: its read columns are there (500 reads of 4 KiB)"
like "$(csv_cells c.csv mix "${W[@]}")" '^[0-9.]+\|' "csv: a row that reads and writes has both"
python3 - c.csv d.json <<'PY'
import csv, sys
h = next(csv.reader(open(sys.argv[1], newline="")))
timed = [c for c in h if "Time" in c and not c.startswith("%")]
assert len(timed) >= 11 and all(c.endswith("(ms)") or c.endswith("(s)") for c in timed), timed
assert "Seconds" not in h and "Measured Time (s)" in h and "Average Response Time (ms)" in h, h
PY
ok $? "csv: every time column's header says its unit (ms, s)"
"$IOMOON" report d.json --format csv | head -1 | tr ',' '\n' | grep -E 'Trim|Sync' | grep 'Time' | grep -vc '(ms)"' >bad.count
is "$(cat bad.count)" 0 "csv: the sync and trim time columns too"
done_testing
