#!/bin/bash
# test: timed (holds a measurement to a bound: make bench-timing runs it alone with IOMOON_TIMING=1)
# Streams: what each stream did (tests/lua/streams.lua: its own file, its
# own rate, the phase as the exact merge), bad input refused before
# anything is created, and reports with a row per stream and the total.
. "$(dirname "$0")/lib.sh"
mkdir "$TMP/lua"
lua_tap "$T/lua/streams.lua" "$T" "$TMP/lua"
cd "$TMP" || exit 1

# ---- each file changed only by the stream that writes it (md5sum) ----
head -c 4M /dev/urandom >"$TMP/ro.dat"
head -c 4M /dev/urandom >"$TMP/rw.dat"
ro=$(md5sum <"$TMP/ro.dat"); rw=$(md5sum <"$TMP/rw.dat")
"$IOMOON" run --format csv "$LUA_DIR/files.lua" "$TMP/ro.dat" "$TMP/rw.dat" >"$TMP/files.csv" 2>"$TMP/files.err"
is $? 0 "a reader on one file beside a writer on another: exit 0"
is "$(md5sum <"$TMP/ro.dat")" "$ro" "md5sum: the file only read is unchanged"
[ "$(md5sum <"$TMP/rw.dat")" != "$rw" ] && [ "$(stat -c %s "$TMP/rw.dat")" -eq 4194304 ]
ok $? "md5sum: the file written changed (and kept its size)"

# ---- bad input: exit 2, one line naming the field, nothing on disk ----
# refused SCRIPT-BODY FIELD-REGEX DESCRIPTION: the phase's body, with a
# target to be created ($TMP/new.dat) and a report file asked
refused() {
	rm -f "$TMP/new.dat" "$TMP/other.dat" "$TMP/r.json"
	printf 'require("iomoon").run { target = { path = "%s", size = "1m" }, bs = "4k", duration = 0.2, %s }\n' \
		"$TMP/new.dat" "$1" >"$TMP/bad.lua"
	"$IOMOON" run --format json --output "$TMP/r.json" "$TMP/bad.lua" >"$TMP/bad.out" 2>"$TMP/bad.err"
	is $? 2 "$3: exit 2"
	is "$(wc -l <"$TMP/bad.err")" 1 "$3: one line on stderr"
	like "$(cat "$TMP/bad.err")" "$2" "$3: the message names the field"
	[ ! -e "$TMP/new.dat" ] && [ ! -e "$TMP/other.dat" ] && [ ! -e "$TMP/r.json" ]
	ok $? "$3: nothing created (no target, no report)"
}
refused 'streams = { {}, { qdd = 2 } }' "phase\\.streams\\[2\\]: unknown field 'qdd' \\(did you mean 'qd'\\?\\)" \
	"an unknown stream field"
refused 'streams = { {}, { ramp = "1s" } }' '^iomoon: .*phase\.streams\[2\]\.ramp: belongs to the phase, not to a stream' \
	"a phase-only field (ramp) in a stream"
refused 'streams = { {}, { seed = 7 } }' 'phase\.streams\[2\]\.seed: belongs to the phase' "a phase-only field (seed) in a stream"
refused 'rate = 100, streams = { {}, {} }' 'phase\.rate: given with phase\.streams \(give each stream its own rate' \
	"a phase-wide rate with streams"
refused 'ios = 100, streams = { {}, {} }' 'phase\.ios: given with phase\.streams' "a phase-wide ios with streams"
refused 'bs = nil, streams = { { bs = "4k" }, { qd = 2 } }' 'phase\.streams\[2\]\.mix: missing' "a stream without a mix"
refused 'streams = { { name = "log" }, { name = "log", read = 0, bs = "4k" } }' \
	"phase\\.streams\\[2\\]\\.name: 'log' is also the name of phase\\.streams\\[1\\]" "two streams of one name"
# names that read the same wherever shown: one row, one metrics label set
# (before: two streams of one label set on the metrics endpoint)
refused 'streams = { { name = "a\255" }, { name = "a\254", read = 0, bs = "4k" } }' \
	"phase\\.streams\\[2\\]\\.name: 'a.xfe' reads as the name of phase\\.streams\\[1\\] .*not UTF-8 shows as U\\+FFFD" \
	"two stream names that differ only in bytes that are not UTF-8"
refused 'streams = { { name = "s nbd://u:pw1@127.0.0.1/x" }, { name = "s nbd://u:pw2@127.0.0.1/x", read = 0, bs = "4k" } }' \
	"phase\\.streams\\[2\\]\\.name: .* reads as the name of phase\\.streams\\[1\\]" \
	"two stream names that differ only in a URL's password"
refused 'streams = { { mix = { { bs = "4k", read = 50 } }, trim = 30 } }' \
	'phase\.streams\[1\]\.trim: given with phase\.streams\[1\]\.mix' "a stream's trim beside its mix (silently ignored before)"
refused 'streams = { { mix = { { bs = "4k", read = 0 } }, random = 20 } }' 'phase\.streams\[1\]\.random: given with phase\.streams\[1\]\.mix' "a stream's random beside its mix"
refused 'streams = (function() local t = {} for i = 1, 17 do t[i] = {} end return t end)()' \
	'phase\.streams: 17 streams \(give 1 to 16\)' "17 streams"
refused 'streams = { { bs = "4k", read = 0, verify = "crc32c" }, { bs = "4k", read = 100 } }' \
	'phase\.streams\[1\]\.verify: crc32c on .*/new\.dat, which phase\.streams\[2\] also uses' \
	"crc32c writes on a target another stream uses"
refused "streams = { { bs = '4k', read = 0, verify = 'crc32c' }, { target = { path = '$TMP/other.dat', size = '1m' } } }, workers = 300" \
	'phase\.workers: 300 is out of range' "a bad phase field with streams (nothing of any stream created)"
refused "streams = { {}, { target = { path = '$TMP/other.dat', size = '1m' }, qd = 0 } }" \
	'phase\.streams\[2\]\.qd: 0 is out of range' "a bad field in stream 2, whose target would be created"
refused "streams = { {}, { target = { path = '$TMP/r.json', size = '1m' } } }" \
	'phase\.streams\[2\]\.target: .*/r\.json is the report file \(--output\)' "a stream's target is the report file"

# A stream that verifies what another stream overwrites without
# verification would read false "missing" errors: refused.
rm -f "$TMP/new.dat"
"$IOMOON" run --format none "$LUA_DIR/crc32c-overwritten.lua" "$TMP/new.dat" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$TMP/new.dat" ]; ok $? "crc32c reads of a target another stream writes: exit 2, nothing created (exit $rc)"

# Two streams that name one file to be created (the same option table, in
# a region each) share it, as when the phase gives it: created once, each
# stream's I/O in its own region of it (tests/lua/43-streams/shared.lua).
lua_tap "$LUA_DIR/shared.lua" "$T" "$TMP/shared.dat" streams
err=$("$IOMOON" run --format none "$LUA_DIR/two-sizes.lua" "$TMP/shared2.dat" 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$TMP/shared2.dat" ]; ok $? "one file to be created with two sizes: exit 2, nothing created (exit $rc)"
like "$err" 'phase\.streams\[2\]\.target: .*shared2\.dat is also phase\.streams\[1\]\.target, with other options' "and says which"
# the same through the phase's target
lua_tap "$LUA_DIR/shared.lua" "$T" "$TMP/shared.dat" phase

# ---- reports: a row per stream, then the phase's total ----
# report.lua: a phase without streams, then one of three (one rate unmet)
REP="$LUA_DIR/report.lua"
out=$("$IOMOON" run "$REP"); ok $? "table report: exit 0"
names=$(printf '%s\n' "$out" | grep -v '^engine ' | sed -n '2,$p' | cut -c1-36 | sed 's/ *$//' | tr '\n' ',')
is "$names" "plain,pg / data,pg / wal,pg / scan,pg," "table: plain, then pg's streams as 'pg / NAME', then pg's total"
like "$(printf '%s\n' "$out" | grep '^pg / data')" 'rate not met: [0-9]+ of 5000 IOPS$' "table: a stream's unmet rate marked on its row"
# (wal's 200 IOPS is met on a quiet machine; a loaded one may starve it,
# and then the table says so: either way the mark is the rule's)
like "$(printf '%s\n' "$out" | grep '^pg / wal')" '[0-9.]+ +[0-9]+%(  (host busy: [^;]*|rate not met: [0-9]+ of 200 IOPS))*$' "table: a stream's met rate not marked (a busy machine's marks aside)"
like "$(printf '%s\n' "$out" | grep '^pg  ')" '[0-9.]+ +[0-9]+%(  host busy: [^;]*)?$' "table: the total row has no rate of its own to miss"

for mode in stdout file; do
	if [ $mode = stdout ]; then "$IOMOON" run --format csv "$REP" >"$TMP/rep.csv"
	else "$IOMOON" run --format csv --output "$TMP/rep.csv" "$REP" >/dev/null; fi
	python3 - "$TMP/rep.csv" <<'PY'
import csv, sys
r = list(csv.reader(open(sys.argv[1], newline="")))
h = r[0]
assert h[:3] == ["Target Type", "Target Name", "Access Specification Name"], h[:3]
assert h[-7:] == ["Asked IOps", "Rate Met", "Bottleneck", "In Flight (mean)", "Warning", "Phase Name", "Stream"], h[-7:]
rows = [dict(zip(h, x)) for x in r[1:]]
got = [(x["Access Specification Name"], x["Phase Name"], x["Stream"], x["Rate Met"]) for x in rows]
# wal's 200 IOPS: "yes" on a quiet machine, "no" if a loaded one starved it
assert got[2][3] in ("yes", "no"), got
got[2] = got[2][:3] + ("yes",)
assert got == [("plain", "plain", "", ""), ("pg / data", "pg", "1", "no"), ("pg / wal", "pg", "2", "yes"),
               ("pg / scan", "pg", "3", ""), ("pg", "pg", "All", "")], got
s = rows[1:4]
n = lambda v: int(v or 0)  # a direction a row neither did nor asked is empty
assert sum(n(x["Read I/Os"]) + n(x["Write I/Os"]) for x in s) == n(rows[4]["Read I/Os"]) + n(rows[4]["Write I/Os"])
assert rows[2]["Read I/Os"] == "" and int(rows[2]["Write I/Os"]) > 0, rows[2]
assert [x["# Workers"] for x in rows[1:]] == ["1", "1", "1", "3"]
PY
	ok $? "csv ($mode): IOMeter's columns first, Phase Name and Stream last; a row per stream (1, 2, 3) then All; Rate Met per stream; the total adds up"
done
"$IOMOON" run --format csv "$LUA_DIR/plain.lua" >"$TMP/plain.csv"
python3 -c "
import csv,sys
r = list(csv.reader(open(sys.argv[1], newline='')))
assert len(r[0]) == 57 and r[0][-1] == 'Warning' and 'Stream' not in r[0], r[0][-3:]" "$TMP/plain.csv"
ok $? "csv without streams: the columns as before streams (57, Warning last)"

for mode in stdout file; do
	if [ $mode = stdout ]; then "$IOMOON" run --format json "$REP" >"$TMP/rep.json"
	else "$IOMOON" run --format json --output "$TMP/rep.json" "$REP" >/dev/null; fi
	python3 - "$TMP/rep.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
plain, pg = d["phases"]
assert "streams" not in plain
s = pg["streams"]
assert [(x["name"], x["stream"]) for x in s] == [("data", 1), ("wal", 2), ("scan", 3)], s
assert sum(x["ios"] for x in s) == pg["ios"] and sum(x["read"]["ios"] for x in s) == pg["read"]["ios"]
for x in s:
    assert x["lat"]["p99_ns"] > 0 and "hist" not in x["lat"] and sum(i["ios"] for i in x["intervals"]) > 0, x["lat"]
assert s[0]["rate_asked_iops"] == 5000 and s[0]["iops"] < 0.98 * 5000
assert s[1]["rate_asked_iops"] == 200 and "rate_asked_iops" not in s[2] and "rate_asked_iops" not in pg
PY
	ok $? "json ($mode): the total holds its streams, each a whole result with its figures and intervals (no histogram)"
done

out=$("$IOMOON" run --format markdown "$REP")
is "$(printf '%s\n' "$out" | grep '^|' | sed -n '3,$p' | cut -d'|' -f2 | sed 's/^ //; s/ $//' | tr '\n' ',')" "plain,pg / data,pg / wal,pg / scan,pg," \
	"markdown: a row per stream, then the total"
like "$(printf '%s\n' "$out" | grep '^| pg / data')" '\| rate not met: [0-9]+ of 5000 IOPS \|$' "markdown: a stream's unmet rate"
like "$(printf '%s\n' "$out" | grep '^| pg |')" '\| ok \|$' "markdown: the total row ok"
out=$("$IOMOON" run --format analyzer "$REP")
is "$(printf '%s\n' "$out" | grep '^AccessSpec=' | tr '\n' ',')" "AccessSpec=plain,AccessSpec=pg / data,AccessSpec=pg / wal,AccessSpec=pg / scan,AccessSpec=pg," \
	"analyzer: a block per stream, then the total's"
like "$out" 'AccessSpec=pg / data
IOps=[0-9.]+
ReadIOps=[0-9.]+
WriteIOps=0\.00
MBps=[0-9.]+
ReadMBps=[0-9.]+
WriteMBps=0\.00
Errors=0
Status=rate not met' "analyzer: the unmet stream's block says so"
# a stream that ends by its own quota has its own measured time: its rate
# is its own, not spread over the phase's (a false "rate not met" before)
"$IOMOON" run --format json --output "$TMP/quota.json" "$LUA_DIR/quota.lua" >/dev/null
python3 - "$TMP/quota.json" >"$TMP/quota.out" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
a, b = p["streams"]
# its own rate is its I/Os over its own seconds (spread over the phase's
# it would be about 167), which no load can move; whether 1000 IOPS was met
# is the scheduler's, so the table must say what rows.rate_met's rule says
lat = a["lat"]["max_ns"] / 1e9
met = a["iops"] >= 990 or (1000 - a["iops"]) * a["seconds"] <= 1 + 1000 * lat
print(a["ios"], a["seconds"] < p["seconds"], abs(a["iops"] * a["seconds"] - a["ios"]) < 0.5, b["seconds"] == p["seconds"],
      "#", "met" if met else "not met", "# paced %.3f s, %.0f IOPS; phase %.3f s" % (a["seconds"], a["iops"], p["seconds"]))
PY
is "$(cut -d'#' -f1 "$TMP/quota.out")" "100 True True True " "a paced stream's own quota: its own seconds and rate ($(cut -d'#' -f3 "$TMP/quota.out"))"
want=$(cut -d'#' -f2 "$TMP/quota.out" | tr -d ' ')
"$IOMOON" report "$TMP/quota.json" --format table | grep -q "rate not met"
is "$([ $? -eq 0 ] && echo notmet || echo met)" "$( [ "$want" = met ] && echo met || echo notmet)" \
	"  and the table says its rate was $want, as the rule on its own figures does"
# ---- start_delay: a late stream's schedule counts from its own start ----
"$IOMOON" run --format json --output "$TMP/delay.json" "$LUA_DIR/delay.lua" >/dev/null
python3 - "$TMP/delay.json" >"$TMP/delay.out" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
late = p["streams"][0]
ivs = [iv["ios"] for iv in late["intervals"]]
# 0.3 s idle, 0.3 s at 1000 (300 I/Os), 0.3 s at 3000 (900): before, the
# schedule counted from the phase's start and the stream began at 3000
# (1800 I/Os, 900 in its first 0.3 s). Ceilings only: a loaded machine
# paces slower, never faster, and its sampler may take an interval late
# (2 I/Os of the stream's first fell in the first interval so)
print(p["seconds"] >= 0.89, 0 < late["ios"] <= 1200 + 60, ivs[0] + ivs[1] <= 300 + 300,
      "# phase %.3f s; late stream %d I/Os by interval %s" % (p["seconds"], late["ios"], ivs))
PY
is "$(cut -d'#' -f1 "$TMP/delay.out")" "True True True " "start_delay: the stream's schedule from its own start, the phase to its end ($(cut -d'#' -f2 "$TMP/delay.out"))"

done_testing
