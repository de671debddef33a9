#!/bin/bash
# test: timed (holds a measurement to a bound: make bench-timing runs it alone with IOMOON_TIMING=1)
# Reports: complete or untouched on a full filesystem (every format), never
# renamed over what is not a report, names that cannot break or forge a
# format, and errors and unmet rates shown in every format.
. "$(dirname "$0")/lib.sh"
TINY="$TMP/tiny"
mkdir "$TMP/lua"
lua_tap "$T/lua/reports.lua" "$T" "$TMP/lua"

cd "$TMP" || exit 1
F="$TMP/t.dat"
SIM=(--engine sim --target "$F" --size 1m --quiet)

# ---- a full filesystem: the previous report stays, exit 1, no temporary ----
mkdir -p "$TINY"
if mount -t tmpfs -o size=64k tmpfs "$TINY"; then
	MOUNTS="$MOUNTS $TINY"
	# phase one's report fits; then the filesystem fills up; phase two's does not
	for fmt in json csv markdown analyzer table; do
		rm -f "$TINY"/*
		err=$("$IOMOON" run --format $fmt --output "$TINY/r.$fmt" "$LUA_DIR/fill-up.lua" "$TINY/r.$fmt" "$TMP/keep.$fmt" "$TINY" "$F" 2>&1 >/dev/null)
		is $? 1 "$fmt: a report that does not fit: exit 1"
		like "$err" "tiny/r\\.$fmt: write failed, the previous file is kept: No space left on device" "$fmt: says why and that the previous file is kept"
		cmp -s "$TINY/r.$fmt" "$TMP/keep.$fmt" && grep -q one "$TINY/r.$fmt"; ok $? "$fmt: the one-phase report is still there, byte for byte"
		is "$(ls -A "$TINY" | grep -c tmp-)" 0 "$fmt: no temporary file left behind"
	done
	python3 -m json.tool "$TMP/keep.json" >/dev/null; ok $? "json: the kept report is valid JSON (python3 -m json.tool)"
	rm -f "$TINY"/*
	# the script's own CSV writer on a full filesystem
	printf 'old\r\n' >"$TINY/w.csv"
	err=$("$IOMOON" run --format none "$LUA_DIR/csv-full.lua" "$TINY/w.csv" 2>&1)
	is $? 1 "csv.writer on a full filesystem: exit 1"
	is "$(cat "$TINY/w.csv")" "$(printf 'old\r\n')" "csv.writer: the previous file is kept"
	is "$(ls -A "$TINY" | grep -c tmp-)" 0 "csv.writer: no temporary file left behind"
	# a row that does not fit: its error names the reason, the temporary
	# file is gone at once (not at close), and close says it again
	rm -f "$TINY"/*
	printf 'old\r\n' >"$TINY/w.csv"
	"$IOMOON" run --format none "$LUA_DIR/csv-row-full.lua" "$TINY" >"$TMP/row.out" 2>&1
	like "$(grep '^row:' "$TMP/row.out")" 'row:	false	.*tiny/w\.csv: write failed, the previous file is kept: No space left on device' "csv.writer: a failed row names the file and the reason"
	is "$(grep '^temporaries:' "$TMP/row.out")" "temporaries:	0" "csv.writer: the temporary file is removed when a row fails, before close"
	like "$(grep '^close:' "$TMP/row.out")" 'close:	false	.*No space left on device' "csv.writer: close raises the failure again"
	is "$(cat "$TINY/w.csv")" "$(printf 'old\r\n')" "csv.writer: after a failed row, the previous file is kept"
	umount_wait "$TINY"
else
	for i in $(seq 28); do skip "cannot mount a tmpfs"; done
fi

# ---- what --output may replace ----
out=$("$IOMOON" quick "${SIM[@]}" --ios 10 --format json --output -); ok $? "--output -: exit 0"
printf '%s' "$out" | python3 -c 'import json,sys; assert len(json.load(sys.stdin)["phases"]) == 1'; ok $? "--output -: the JSON document on stdout"
[ ! -e "$TMP/-" ]; ok $? "--output -: no file named -"
mkfifo "$TMP/fifo"
timeout 20 "$IOMOON" quick "${SIM[@]}" --ios 10 --output "$TMP/fifo" >/dev/null 2>&1; rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; ok $? "--output FIFO: refused without blocking (exit $rc)"
[ -p "$TMP/fifo" ]; ok $? "--output FIFO: still a FIFO"
printf 'mine\n' >"$TMP/real.json"
ln -s "$TMP/real.json" "$TMP/link.json"
"$IOMOON" quick "${SIM[@]}" --ios 10 --output "$TMP/link.json" >/dev/null 2>&1; rc=$?
[ "$rc" -ne 0 ] && [ -L "$TMP/link.json" ] && [ "$(cat "$TMP/real.json")" = mine ]
ok $? "--output symlink: refused (exit $rc), the link and its file untouched"
head -c 1M /dev/urandom >"$TMP/user.db"
sum=$(md5sum <"$TMP/user.db")
"$IOMOON" quick --engine sim --target "$TMP/user.db" --quiet --ios 10 --output "$TMP/user.db" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] && [ "$(md5sum <"$TMP/user.db")" = "$sum" ]; ok $? "--output the target: exit 2 (got $rc), the file untouched"

# ---- names that would break or forge a format ----
NAME=$'x\nIOps=999\r\t|y'
out=$("$IOMOON" quick "${SIM[@]}" --ios 10 --name "$NAME" --format analyzer)
is "$(printf '%s\n' "$out" | grep -c '^IOps=')" 1 "analyzer: a name with a newline does not forge IOps="
is "$(printf '%s\n' "$out" | head -1)" 'AccessSpec=x\nIOps=999\r\t|y' "analyzer: the name shown escaped"
out=$("$IOMOON" quick "${SIM[@]}" --ios 10 --name "$NAME" --format markdown)
is "$(printf '%s\n' "$out" | wc -l)" 5 "markdown: how it ran, a blank line, a header, its rule and one row"
like "$(printf '%s\n' "$out" | sed -n 1p)" '^engine sim, O_DIRECT, test area .*t\.dat: 1 MiB file' "markdown: how it ran, as the table says it"
like "$(printf '%s\n' "$out" | sed -n 5p)" '^\| x\\\\nIOps=999\\\\r\\\\t\\\|y \| [0-9]+ \|.* \| 0 \| ok \|$' "markdown: the name escaped, errors 0, ok"
out=$("$IOMOON" quick "${SIM[@]}" --ios 10 --name "$NAME")
is "$(printf '%s\n' "$out" | wc -l)" 3 "table: how it ran, a header and one row"
"$IOMOON" quick "${SIM[@]}" --ios 10 --name $'bad \xff\xfe \xc3\xa9' --format json >"$TMP/n.json"
python3 -c "import json,sys; n=json.load(open(sys.argv[1], encoding='utf-8'))['phases'][0]['name']; assert n == 'bad \ufffd\ufffd \u00e9', repr(n)" "$TMP/n.json"
ok $? "json: bytes that are not UTF-8 become U+FFFD, valid UTF-8 is kept"
"$IOMOON" run --format json "$LUA_DIR/meta-cycle.lua" "$F" >"$TMP/c.json"
is $? 0 "json: a meta that contains itself: exit 0"
python3 -c "
import json,sys
pairs = json.load(open(sys.argv[1]), object_pairs_hook=lambda p: p)
meta = dict(dict(pairs)['phases'][0])['meta']
assert sorted(k for k, v in meta) == ['1', '1 (number)', 'self'] and dict(meta)['self'] == '<cycle>', meta" "$TMP/c.json"
ok $? "json: the cycle written as <cycle>, no key twice"
"$IOMOON" quick "${SIM[@]}" --ios 10 --name "=cmd|' /C calc'!A0" --format csv >"$TMP/f.csv"
python3 -c "
import csv,sys
r = list(csv.reader(open(sys.argv[1], newline='')))
assert r[1][r[0].index('Access Specification Name')] == \"'=cmd|' /C calc'!A0\", r[1]" "$TMP/f.csv"
ok $? "csv: a formula gets a leading '"

# ---- CSV quoting: RFC 4180, the same bytes from every writer ----
# a quote doubled; a comma, CR, LF and a control byte kept inside the
# quotes; numbers as Lua prints them; nil empty; CRLF after every row
printf '"h1","h2"\r\n"a""b","c,d","e\nf","\001g\r","42","1.5","",""\r\n' >"$TMP/want.csv"
"$IOMOON" run --format none "$LUA_DIR/csv-quoting.lua" "$TMP/format.csv" "$TMP/writer.csv"
is $? 0 "csv quoting: format and writer exit 0"
cmp "$TMP/want.csv" "$TMP/format.csv"; ok $? "csv.format: RFC 4180 bytes (quote doubled; comma, LF, CR, \\001 kept quoted; CRLF rows)"
cmp "$TMP/want.csv" "$TMP/writer.csv"; ok $? "csv.writer: the same bytes"
# a phase name with a quote, a comma, a newline and a control byte, in the
# CSV report on stdout and in an --output file
NAME=$'q"c,n\nx\001'
"$IOMOON" quick "${SIM[@]}" --ios 10 --name "$NAME" --format csv >"$TMP/q.csv"
"$IOMOON" quick "${SIM[@]}" --ios 10 --name "$NAME" --format csv --output "$TMP/q-out.csv"
for f in q.csv q-out.csv; do
	python3 - "$TMP/$f" <<'PY'
import csv, sys
data = open(sys.argv[1], "rb").read()
assert b',"q""c,n\nx\x01",' in data, data[:400]
assert data.endswith(b'"\r\n') and data.count(b"\r\n") == 2, data[-40:]
r = list(csv.reader(open(sys.argv[1], newline="")))
assert len(r) == 2 and r[1][r[0].index("Access Specification Name")] == 'q"c,n\nx\x01', r
PY
	ok $? "csv report ($f): the name quoted as RFC 4180 wants, read back intact"
done

# ---- errors and unmet rates in every format ----
Q=(quick "${SIM[@]}" --qd 1 --time 0.5)
"$IOMOON" "${Q[@]}" --rate 100000 --format csv >"$TMP/rate.csv"
"$IOMOON" "${Q[@]}" --rate 100 --format csv >"$TMP/met.csv"
"$IOMOON" "${Q[@]}" --ios 100 --format csv >"$TMP/closed.csv" # a closed loop: no rate to take its time
python3 - "$TMP/rate.csv" "$TMP/met.csv" "$TMP/closed.csv" <<'PY'
import csv, sys
got = []
for p in sys.argv[1:]:
    r = list(csv.reader(open(p, newline="")))
    got.append((r[1][r[0].index("Asked IOps")], r[1][r[0].index("Rate Met")]))
assert got == [("100000.00", "no"), ("100.00", "yes"), ("", "")], got
PY
ok $? "csv: Asked IOps and Rate Met (no, yes, blank for a closed loop)"
out=$("$IOMOON" "${Q[@]}" --rate 100000)
like "$(printf '%s\n' "$out" | sed -n 3p)" '  rate not met: [0-9]+ of 100000 IOPS$' "table: an unmet rate marked on its row"
out=$("$IOMOON" "${Q[@]}" --rate 100000 --format markdown)
like "$out" '\| Errors \| Status \|' "markdown: Errors and Status columns"
like "$out" '\| 0 \| rate not met: [0-9]+ of 100000 IOPS \|$' "markdown: an unmet rate"
out=$("$IOMOON" "${Q[@]}" --rate 100)
like "$(printf '%s\n' "$out" | sed -n 3p)" '[0-9.]+ +[0-9]+%(  host busy: [^;]*)?$' "table: a met rate is not marked (a busy machine's mark aside)"

# a verification that finds a corrupted block: its errors in every format
V="$TMP/v.dat"
"$IOMOON" run --format none "$LUA_DIR/write-offsets.lua" "$V"
printf 'BROKEN' | dd of="$V" bs=1 seek=65536 conv=notrunc status=none
for fmt in markdown analyzer table csv; do
	out=$("$IOMOON" run --format $fmt "$LUA_DIR/verify.lua" "$V"); is $? 1 "verification errors, $fmt: exit 1"
	case $fmt in
	markdown) like "$out" '^\| verify \| .* \| 1 \| 1 error \(read of 65536 bytes at offset 65536: ' "markdown: the errors column and the first error" ;;
	analyzer) printf '%s\n' "$out" | grep -qx 'Errors=1' && printf '%s\n' "$out" | grep -Eq '^Status=1 error \(read of 65536 bytes at offset 65536'
		ok $? "analyzer: Errors= and Status=" ;;
	table) like "$(printf '%s\n' "$out" | sed -n 3p)" '  1 error \(read of 65536 bytes at offset 65536' "table: the errors on the row" ;;
	csv) is "$(printf '%s' "$out" | python3 -c 'import csv,sys; r=list(csv.reader(sys.stdin)); print(r[1][r[0].index("Errors")])')" 1 "csv: the Errors column" ;;
	esac
done

# a schedule is judged against the rate it asked over the measured time,
# not against its first segment: 0.3 s at 100 IOPS then 0.3 s at 1000 asks 550
out=$("$IOMOON" run --quiet --format csv "$LUA_DIR/schedule.lua")
is "$(printf '%s' "$out" | python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin))[0]; print(r["Asked IOps"])')" "550.00" \
	"a two-segment schedule asks 550 IOPS over its measured time (not its first segment's 100)"

# JSON says whether an open-loop rate was met: rate_met, per phase and per stream
out=$("$IOMOON" run --format json "$LUA_DIR/rate-met.lua" | python3 -c '
import json, sys
p = json.load(sys.stdin)["phases"]
# the device cannot do 500 (qd 1 at 10 ms: 100 IOPS), whatever the load;
# whether 200 of 4000 and 100 of 400 were met is the host'"'"'s: what holds is
# that rate_met says what the rule (report/rows.lua) says of its figures
rule = lambda r, asked: r["iops"] >= 0.99 * asked or (asked - r["iops"]) * r["seconds"] <= 1
e, m = p[1], p[3]["streams"][1]
print(p[0].get("rate_met"), e.get("rate_met") == rule(e, 200), "rate_met" in p[2],
      [p[3]["streams"][0].get("rate_met"), m.get("rate_met") == rule(m, 100), p[3]["streams"][2].get("rate_met")])')
is "$out" "False True False [False, True, None]" "JSON: rate_met false for 98 of 500 IOPS, as the rule says when it may be met, absent for a closed loop; per stream"
done_testing
