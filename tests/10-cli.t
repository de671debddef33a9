#!/bin/bash
# The command line: version, help, list, the three formats, --output, exit
# statuses, and bad input (exit 2, one line naming the field, nothing on disk).
. "$(dirname "$0")/lib.sh"

out=$("$IOMOON" --version); ok $? "--version exits 0"
like "$out" '^iomoon [0-9]+\.[0-9]+\.[0-9]+' "--version prints the version"
out=$("$IOMOON" help); like "$out" 'iomoon quick' "help lists the commands"
"$IOMOON" >/dev/null 2>&1; is $? 2 "no command: exit 2"
err=$("$IOMOON" frobnicate 2>&1); is $? 2 "unknown command: exit 2"
like "$err" "unknown command 'frobnicate'" "unknown command named"
out=$("$IOMOON" list); ok $? "list exits 0"
# what works depends on the kernel: ask it directly (tests/kernel_has.py)
for e in io_uring libaio; do
	if why=$(python3 "$T/kernel_has.py" $e); then
		like "$out" "$e +works" "list: $e works on this kernel"
	elif [ $? -eq 1 ]; then
		like "$out" "$e +unavailable: " "list: $e unavailable here, as the kernel says ($why)"
	else
		skip "cannot tell whether $e works here: $why"
	fi
done
like "$out" 'quick ' "list: shows the quick suite"

F="$TMP/t.dat"
Q=(quick --target "$F" --size 16m --time 0.5 --quiet)
out=$("$IOMOON" "${Q[@]}"); ok $? "quick creates a target and runs"
like "$(echo "$out" | head -1)" '^engine [a-z_]+, O_DIRECT, test area .*/t\.dat: 16 MiB file' "table: how it ran above the header (engine, O_DIRECT, test area)"
like "$(echo "$out" | sed -n 2p)" '^Test name +Latency ms +Avg iops +Avg MiB/s +cpu load +p99 ms' "table header in the seeds' shape"
like "$(echo "$out" | sed -n 3p)" '^4K; 100% Read; 100% random; QD 1 +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9]+% +[0-9.]+$' "table row: name, latency, iops, MiB/s, cpu, p99"
is "$(stat -c %s "$F")" 16777216 "target created at --size"

"$IOMOON" "${Q[@]}" --format json --qd 4 >"$TMP/out.json"; ok $? "json format exits 0"
python3 - "$TMP/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))          # exactly one document, or this raises
assert d["iomoon"] and len(d["phases"]) == 1, d.keys()
p = d["phases"][0]
for k in ("name", "ios", "bytes", "seconds", "iops", "mb_per_s", "mib_per_s", "engine", "errors", "intervals"):
    assert k in p, k
for k in ("min_ns", "mean_ns", "max_ns", "stdev_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns"):
    assert k in p["lat"] and k in p["read"]["lat"], k
assert set(p["cpu"]) == {"user_s", "sys_s", "util_pct"}
l = p["lat"]
assert l["min_ns"] <= l["p50_ns"] <= l["p90_ns"] <= l["p99_ns"] <= l["p999_ns"] <= l["max_ns"], l
assert p["ios"] == p["read"]["ios"] + p["write"]["ios"] and p["ios"] > 0
assert abs(p["iops"] - p["ios"] / p["seconds"]) < 1e-6 * p["iops"]
assert p["bytes"] == 4096 * p["ios"] and abs(p["mb_per_s"] * 1e6 - p["bytes"] / p["seconds"]) < 1
assert p["qd"] == 4 and p["qd_max"] == 4, (p["qd"], p["qd_max"])
assert sum(i["ios"] for i in p["intervals"]) == p["ios"], "intervals add up to the phase"
assert "hist" not in l
PY
ok $? "json: one valid document with every documented field, consistent figures"

"$IOMOON" "${Q[@]}" --format csv >"$TMP/out.csv"; ok $? "csv format exits 0"
python3 - "$TMP/out.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) == 2, rows
h, r = rows
# IOMeter results.csv's order, where its columns apply
assert h[:9] == ["Target Type", "Target Name", "Access Specification Name", "# Workers", "# Disks",
                 "IOps", "Read IOps", "Write IOps", "MBps (Binary)"], h
assert "Average Response Time (ms)" in h and "% CPU Utilization" in h and "p99 Response Time (ms)" in h
assert r[0] == "FILE" and r[2].startswith("4K; 100% Read") and float(r[h.index("IOps")]) > 0
mib, iops = float(r[h.index("MBps (Binary)")]), float(r[h.index("IOps")])
assert abs(mib - iops * 4096 / 1048576) < 0.02, (mib, iops)
PY
ok $? "csv: IOMeter's columns and one row, read back by python's csv"

"$IOMOON" "${Q[@]}" --format json --output "$TMP/r.json" >"$TMP/stdout"; ok $? "--output exits 0"
is "$(cat "$TMP/stdout")" "" "--output: nothing on stdout"
python3 -c "import json,sys; assert len(json.load(open(sys.argv[1]))['phases']) == 1" "$TMP/r.json"; ok $? "--output: the file holds the document"
is "$(ls "$TMP" | grep -c tmp-)" 0 "--output: no temporary file left"

# bad input: exit 2, one line naming the option, nothing created
bad() { # bad DESCRIPTION REGEX ARGS...
	local desc=$1 re=$2; shift 2
	local err rc
	err=$("$IOMOON" "$@" 2>&1 >/dev/null); rc=$?
	is $rc 2 "$desc: exit 2"
	like "$err" "$re" "$desc: message names it"
	is "$(printf '%s\n' "$err" | wc -l)" 1 "$desc: one line"
}
N="$TMP/new.dat"
bad "qd 0" '--qd: 0 is out of range \(allowed: 1 to 4096\)' quick --target "$N" --size 16m --qd 0
bad "qd not a number" "--qd: 'abc' is not a whole number" quick --target "$N" --size 16m --qd abc
bad "bs not a sector multiple" '--bs: 3000 is not a multiple of the 512-byte sector' quick --target "$N" --size 16m --bs 3000
bad "negative size" "--size: '-1g' is not a size" quick --target "$N" --size -1g
bad "zero size" '--size: 0 bytes' quick --target "$N" --size 0
bad "read over 100" '--read: 150 is outside 0..100' quick --target "$N" --size 16m --read 150
bad "unknown engine" "--engine: 'warp' is not an engine \(allowed: auto, io_uring, libaio, psync, null, sim, nbd, iscsi\)" quick --target "$N" --size 16m --engine warp
bad "psync with qd 32" '--qd: 32 with engine psync' quick --target "$N" --size 16m --engine psync --qd 32
bad "not a file or device" '--target: /dev/null is a character device, not a regular file or block device' quick --target /dev/null
bad "missing target" '--target: missing' quick --size 16m
bad "unknown option" 'unknown option --frob' quick --target "$N" --frob 1
bad "unknown format" "--format: 'xml' is not a format" quick --target "$N" --size 16m --format xml
bad "bad duration" "--time: '5 fortnights' has an unknown unit" quick --target "$N" --size 16m --time "5 fortnights"
bad "missing file without size" '--size: needed to create' quick --target "$N"
bad "unknown suite" "suite 'nope' does not exist \(ready suites: .*quick" suite nope --target "$N"
bad "a flag given a value" '^iomoon quick: --quiet takes no value$' quick --target "$N" --size 16m --quiet=1
bad "an option without its value" '^iomoon quick: --qd needs a value$' quick --target "$N" --size 16m --qd
bad "one hyphen" "^iomoon quick: '-qd' is not an option \(options start with two hyphens, as --read\)$" quick --target "$N" --size 16m -qd 4
bad "a stray argument" "^iomoon quick: unexpected argument 'stray' \(every option is --NAME VALUE\)$" quick --target "$N" --size 16m stray
bad "an unknown option, nothing near" '^iomoon quick: unknown option --zzzzzzzz \(known here: --allow-write --bs .* --workers\)$' quick --target "$N" --zzzzzzzz
is "$(ls "$TMP" | grep -c new.dat)" 0 "bad input left no file behind"
# run: iomoon's options come before the script; the words after it are the
# script's (arg), but iomoon's own options there are refused (exit 2, before
# the script runs) unless after --, which is dropped
out=$("$IOMOON" run --quiet --format=none "$LUA_DIR/args.lua" -x --target t --fromat 1 -- --format json --quiet=1 -- y)
is $? 0 "run: the script's own options after it, iomoon's after --: exit 0"
is "$out" "-x|--target|t|--fromat|1|--format|json|--quiet=1|--|y" "run: the words after the script reach it unparsed, the first -- dropped"
out=$("$IOMOON" run --quiet -- "$LUA_DIR/args.lua" --format json); is "$?:$out" "0:--format|json" "run: a -- before the script: every word after it is the script's"
# a burn-in script that takes arg[1] as its target path creates nothing for a misplaced option
mkdir "$TMP/burn" && cd "$TMP/burn" || exit 1
cp "$LUA_DIR/burn.lua" . # run from a folder of its own: what it creates shows
for opts in "--format json --output knee.json" "--format=json" "--output knee.json" "--quiet" "x --quiet y"; do
	# shellcheck disable=SC2086
	err=$("$IOMOON" run burn.lua $opts 2>&1 >out.txt)
	rc=$?
	is "$rc:$(ls | tr '\n' ' ')" "2:burn.lua out.txt " "run burn.lua $opts: exit 2, nothing created"
	like "$err" "^iomoon run: --[a-z]+(, --[a-z]+)? after the script burn.lua: (it is|they are) iomoon's, not the script's; give (it|them) before the script \(iomoon run .*burn.lua.*\), or after -- to pass (it|them) to the script \(iomoon run burn.lua.* -- .*\)$" "... one line naming the options and both ways"
	is "$(wc -l <<<"$err"):$(wc -c <out.txt)" "1:0" "... on stderr only"
done
err=$("$IOMOON" run burn.lua --format json --output knee.json 2>&1)
like "$err" "\(iomoon run --format json --output knee.json burn.lua\), or after -- to pass them to the script \(iomoon run burn.lua -- --format json --output knee.json\)$" "... the command lines that mean them, spelled out"
"$IOMOON" run --quiet --format json --output knee.json burn.lua; ok $? "the options before the script run it"
python3 -c "import json; d=json.load(open('knee.json')); assert d['phases'][0]['name'] == 'burn'"; ok $? "... and write the report"
[ -e burn.dat ] && [ ! -e ./--format ]; ok $? "... on the script's default target"
# the other verbs take their options after their files too
"$IOMOON" suite quick --target q.dat --size 16m --time 0.1 --ramp 0 --engine sim --quiet --format json --output s.json
ok $? "suite: options after the suite's name"
python3 -c "import json; assert len(json.load(open('s.json'))['phases']) == 5"; ok $? "... are the suite's"
out=$("$IOMOON" report knee.json --format csv); like "$(head -1 <<<"$out")" '^"Target Type",' "report: --format after the file"
out=$("$IOMOON" report knee.json x 2>&1); is "$?:$out" "2:iomoon report: unexpected argument 'x' (every option is --NAME VALUE)" "report: a stray word after the file: exit 2"
# ... and before it: suite, replay and trace profile find their file among the words
"$IOMOON" suite --engine sim --time 0.1 --ramp 0 --quiet --format json --output s2.json quick
is "$?:$(python3 -c "import json; print(len(json.load(open('s2.json'))['phases']))")" "0:5" "suite: options before the suite's name"
printf 'fio version 3 iolog\n0 d add\n0 d open\n0 d read 0 4096\n500 d read 8192 4096\n1000 d close\n' >app.iolog
out=$("$IOMOON" replay --engine sim --no-stall --quiet --format csv app.iolog); is "$?:$(wc -l <<<"$out")" "0:2" "replay: options before the trace"
out=$("$IOMOON" trace profile --format json app.iolog); is "$?:$(python3 -c 'import json,sys; print(json.load(sys.stdin)["n"])' <<<"$out")" "0:2" "trace profile: options before the trace"
for v in "suite quick --engine sim extra" "replay app.iolog --engine sim extra" "trace profile app.iolog extra"; do
	# shellcheck disable=SC2086
	out=$("$IOMOON" $v 2>&1); like "$?:$out" "^2:iomoon [a-z]+: unexpected argument 'extra' " "$v: a stray word after the file: exit 2"
done
[ ! -e extra ]; ok $? "... nothing made of it"
cd "$T" || exit 1

# installed elsewhere, the binary finds its library beside it; IOMOON_LUA_PATH overrides
make -s -C "$ROOT" install PREFIX="$TMP/inst" >/dev/null; ok $? "make install PREFIX=..."
out=$(cd / && "$TMP/inst/bin/iomoon" list); ok $? "the installed binary runs from anywhere"
like "$out" 'quick +4k random read' "the installed binary finds its library and suites"
mkdir -p "$TMP/alt/iomoon"
cp -r "$ROOT"/lua/iomoon/. "$TMP/alt/iomoon/"
sed -i 's/^usage: iomoon COMMAND/usage (alt): iomoon COMMAND/' "$TMP/alt/iomoon/cli.lua"
out=$(IOMOON_LUA_PATH="$TMP/alt" "$IOMOON" help); like "$out" '^usage \(alt\)' "IOMOON_LUA_PATH overrides the library"
err=$(IOMOON_LUA_PATH="$TMP/none" "$IOMOON" help 2>&1); is $? 2 "a wrong IOMOON_LUA_PATH: exit 2"
like "$err" "cannot load the Lua library from $TMP/none" "a wrong IOMOON_LUA_PATH is named"

# the default suite, shortened
out=$("$IOMOON" suite quick --target "$TMP/s.dat" --size 32m --time 0.3 --quiet); ok $? "suite quick runs"
is "$(echo "$out" | grep -c '; QD ')" 5 "suite quick: five phases"
like "$out" '1M; 0% Read; 0% random; QD 8' "suite quick: names its phases as the seeds do"
# --help right after a command is the usage (what a new user tries first);
# after a script's name it is the script's
for v in quick suite run fio ping report; do
	out=$("$IOMOON" $v --help 2>&1); rc=$?
	is "$rc:$(printf '%s\n' "$out" | head -1)" "0:usage: iomoon COMMAND [options]" "iomoon $v --help: the usage, exit 0"
done
out=$("$IOMOON" quick -h 2>&1); like "$?:$out" "^0:usage: iomoon" "iomoon quick -h: the same"
printf 'print("script got", ...)\n' >"$TMP/h.lua"
out=$("$IOMOON" run "$TMP/h.lua" --help 2>&1); is "$?:$out" "0:script got	--help" "iomoon run s.lua --help: the script's argument"
done_testing
