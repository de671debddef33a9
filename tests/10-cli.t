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
Q=(quick --target "$F" --size 16m --time 0.5 --ios 2000 --quiet) # whichever comes first: nothing here is timed
out=$("$IOMOON" "${Q[@]}"); ok $? "quick creates a target and runs"
like "$(echo "$out" | head -1)" '^engine [a-z_]+, O_DIRECT, test area .*/t\.dat: 16 MiB file' "table: how it ran above the header (engine, O_DIRECT, test area)"
like "$(echo "$out" | sed -n 2p)" '^Test name +Latency ms +Avg iops +Avg MiB/s +cpu load +p99 ms +iomoon cpu$' "table header in the seeds' shape, then iomoon's own CPU"
# (a busy machine's mark may follow the row: result.bottleneck "host")
like "$(echo "$out" | sed -n 3p)" '^4K; 100% Read; 100% random; QD 1 +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9]+% +[0-9.]+ +[0-9]+%(  host busy: .*)?$' "table row: name, latency, iops, MiB/s, cpu load, p99, iomoon cpu"
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
assert set(p["cpu"]) == {"user_s", "sys_s", "util_pct", "user_pct", "sys_pct", "self_pct", "other_pct", "worker_max_pct",
                         "wait_pct", "other_user_pct"}, p["cpu"]
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
bad "unknown engine" "--engine: 'warp' is not an engine \(allowed: auto, io_uring, libaio, psync, null, sim, nbd, iscsi, nfs\)" quick --target "$N" --size 16m --engine warp
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
bad "an unknown option, nothing near" '^iomoon quick: unknown option --zzzzzzzz \(known here: --allow-write --batch --bs .* --workers\)$' quick --target "$N" --zzzzzzzz
# quick takes fio's spellings: --rw (its values as --read and --random),
# --iodepth, --numjobs, --runtime, --ioengine; a value with no equivalent,
# or both spellings, is exit 2 naming the option typed
bad "fio's rw=trim" "^iomoon quick: --rw: 'trim' has no equivalent in iomoon quick \(it takes fio's read, write, randread, randwrite, rw, readwrite and randrw; trims are a Lua phase's trim = PCT" quick --target "$N" --size 16m --rw trim
bad "fio's rw offset modifier" "^iomoon quick: --rw: 'randread:8' has no equivalent in iomoon quick .*not the ':N' offset modifier\)$" quick --target "$N" --size 16m --rw randread:8
bad "an unknown rw" "^iomoon quick: --rw: 'randomread' has no equivalent" quick --target "$N" --size 16m --rw randomread
bad "fio's ioengine=mmap" "^iomoon quick: --ioengine: 'mmap' has no equivalent in iomoon \(fio's cpp_null, io_uring, libaio, libiscsi, nbd, nfs, null, psync, pvsync, pvsync2, sync, vsync; or iomoon's auto, sim, iscsi\)$" quick --target "$N" --size 16m --ioengine mmap
bad "--iodepth with --qd" "^iomoon quick: --qd: given with --iodepth, which is fio's spelling of it \(give one\)$" quick --target "$N" --size 16m --iodepth 4 --qd 4
bad "--iodepth 0" "^iomoon quick: --iodepth: 0 is out of range \(allowed: 1 to 4096\)$" quick --target "$N" --size 16m --iodepth 0
bad "--numjobs x" "^iomoon quick: --numjobs: 'x' is not a whole number$" quick --target "$N" --size 16m --numjobs x
bad "--runtime 1d" "^iomoon quick: --runtime: '1d' has an unknown unit" quick --target "$N" --size 16m --runtime 1d
bad "--ioengine sync with --iodepth 32" "^iomoon quick: --iodepth: 32 with engine psync" quick --target "$N" --size 16m --ioengine sync --iodepth 32
bad "randread with --read 70" "^iomoon quick: --read: 70 with --rw randread, which is 100 % reads \(give --rw rw or randrw with --read 70, or leave one out\)$" quick --target "$N" --size 16m --rw randread --read 70
bad "a misspelt fio option" '^iomoon quick: unknown option --iodpth \(did you mean --iodepth\?\)$' quick --target "$N" --size 16m --iodpth 4
bad "--read 70 percent, in words" "^iomoon quick: --read: '70 percent' is not a percentage \(give a number from 0 to 100, as 70 or 70%\)$" quick --target "$N" --size 16m --read "70 percent"
bad "--read 70%%, the shell's printf escape typed" "^iomoon quick: --read: '70%%' is not a percentage \(give a number from 0 to 100, as 70 or 70%\)$" quick --target "$N" --size 16m --read "70%%"
bad "--random %50" "^iomoon quick: --random: '%50' is not a percentage \(give a number from 0 to 100, as 70 or 70%\)$" quick --target "$N" --size 16m --random %50
is "$(ls "$TMP" | grep -c new.dat)" 0 "bad input left no file behind"
for c in "--rw=randwrite --iodepth 4 --numjobs 2 --runtime 0.2 --ioengine null|4K; 0% Read; 100% random; QD 4 null 4 2 0 100 0.2" \
	"--rw randrw --read 70% --ioengine null --runtime 0.2|4K; 70% Read; 100% random; QD 1 null 1 1 70 100 0.2" \
	"--rw read --ioengine sync --target $F --time 0.2|4K; 100% Read; 0% random; QD 1 psync 1 1 100 0 0.2" \
	"--read 70% --random 50% --engine null --time 0.2|4K; 70% Read; 50% random; QD 1 null 1 1 70 50 0.2"; do
	out=$("$IOMOON" quick ${c%%|*} --quiet --format json | python3 -c "
import json, sys; p = json.load(sys.stdin)['phases'][0]
print(p['name'], p['engine'], p['qd'], p['workers'], p['mix'][0]['read_pct'], p['mix'][0]['random_pct'], p['seconds'])")
	is "$out" "${c#*|}" "quick ${c%%|*}: runs as fio means it (name, engine, qd, workers, read %, random %, seconds)"
done
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
err=$("$IOMOON" run --quiet --format json --output ./burn.lua burn.lua 2>&1)
like "$?:$err" "^2:iomoon run: --output: './burn.lua' is the script \(burn.lua\); the report would replace it$" \
	"run --output naming the script: exit 2, calls it the script"
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
out=$("$IOMOON" suite quick --target "$TMP/s.dat" --size 32m --time 5 --ios 64 --quiet); ok $? "suite quick runs"
# quick --batch reaches the result: the bound, what held, the submissions
for b in 4 auto; do
	"$IOMOON" quick --engine null --ios 5000 --qd 32 --batch $b --quiet --format json --output "$TMP/b.json"
	is "$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(p["batch"], p["batch_used"] if p["batch"] != "auto" else "-", p["submit_sizes"]["max"] <= (p["batch_used"] or 32))' "$TMP/b.json")" \
		"$b $([ $b = auto ] && echo - || echo $b) True" "quick --batch $b: in the result, and no submission over the bound"
done
err=$("$IOMOON" quick --engine null --ios 10 --batch 0 --quiet 2>&1); is $? 2 "quick --batch 0: exit 2"
like "$err" "^iomoon quick: --batch: 0 is out of range \(allowed: 1 to 4096\)$" "  names --batch and its range"
err=$("$IOMOON" quick --engine null --ios 10 --batch autp --quiet 2>&1); is $? 2 "quick --batch autp: exit 2"
like "$err" "^iomoon quick: --batch: 'autp' is neither a whole number nor auto \\(" "  says --batch takes a whole number or auto"
"$IOMOON" suite quick --engine sim --time 5 --ios 50 --ramp 0 --quiet --format json --output "$TMP/ios.json"
is "$(python3 -c 'import json,sys; print(sorted({(p["ios"], p["quota_ios"]) for p in json.load(open(sys.argv[1]))["phases"]}))' "$TMP/ios.json")" \
	"[(50, 50)]" "suite --ios 50: every phase did 50 I/Os, and says it was asked"
err=$("$IOMOON" suite quick --engine sim --ios 0 --quiet --format none 2>&1); is $? 2 "suite --ios 0: exit 2"
like "$err" "^iomoon suite: --ios: 0 is not a count of I/Os \(1 or more\)$" "  says what --ios takes"
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
# CPU: one meaning per column in every format. result.cpu's _pct are
# shares of the whole machine on block and files phases alike (a files row
# read 197 % where block rows never passed 100 %): util = user + sys,
# iomoon's own (self) at most util, self + other = util; the CSV's %
# User Time + % Privileged Time = % CPU Utilization, as IOMeter's; iomoon's
# own CPU beside the machine's in the table, Markdown and CSV. Witness:
# iomoon's CPU time as its parent sees it (getrusage of the child, which
# holds the phase's and its start-up) is at least the phase's user_s + sys_s
mkdir -p "$TMP/fd"
printf 'local iomoon = require "iomoon"\niomoon.run { name = "mix", files = { dir = arg[1], dirs = 2, files = 20, allow_write = true }, ops = { stat = 50, read = 50 }, workers = 2, duration = "0.5s" }\n' >"$TMP/cpu_files.lua"
python3 - "$IOMOON" "$TMP" <<'PY' >"$TMP/cpu.out"
import json, os, resource, subprocess, sys
iomoon, tmp = sys.argv[1], sys.argv[2]
def run(*args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([iomoon, args[0], "--quiet", "--format", "json", *args[1:]], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["phases"][0], (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
fails = []
for what, args in (("block", ["quick", "--target", tmp + "/c.dat", "--size", "16m", "--time", "0.5", "--qd", "8"]),
                   ("files", ["run", tmp + "/cpu_files.lua", tmp + "/fd"])):
    p, child = run(*args)
    c = p["cpu"]
    checks = {
        "util = user + sys": abs(c["util_pct"] - c["user_pct"] - c["sys_pct"]) < 1e-6,
        "0 <= self <= util <= 100": 0 <= c["self_pct"] <= c["util_pct"] <= 100.0001,
        "self + other = util": abs(c["self_pct"] + c["other_pct"] - c["util_pct"]) < 1e-6,
        "0 <= others in user mode <= user": 0 <= c["other_user_pct"] <= c["user_pct"] + 1e-6,
        "the child's CPU >= the phase's": child + 0.02 >= c["user_s"] + c["sys_s"],
    }
    fails += ["%s: %s (%s; the child's %.3f s)" % (what, k, c, child) for k, ok in checks.items() if not ok]
print("\n".join(fails) or "ok")
PY
is "$(cat "$TMP/cpu.out")" "ok" "result.cpu on a block and a files phase: shares of the machine, util = user + sys = self + other, iomoon's CPU witnessed by its parent"
"$IOMOON" quick --target "$F" --time 0.3 --quiet --format json --output "$TMP/cpu.json"
"$IOMOON" report "$TMP/cpu.json" --format csv | python3 -c '
import csv, json, sys
r = list(csv.DictReader(sys.stdin))[0]; c = json.load(open(sys.argv[1]))["phases"][0]["cpu"]
f = lambda k: float(r[k])
print(abs(f("% User Time") + f("% Privileged Time") - f("% CPU Utilization")) <= 0.011, abs(f("iomoon CPU (% of the machine)") - c["self_pct"]) < 0.006,
      abs(f("Other Work CPU (% of the machine)") - c["other_pct"]) < 0.006, abs(f("Busiest Worker CPU (% of one CPU)") - c["worker_max_pct"]) < 0.006,
      abs(f("Worker Wait for a CPU (% of its time)") - c["wait_pct"]) < 0.006)' "$TMP/cpu.json" >"$TMP/out"
is "$(cat "$TMP/out")" "True True True True True" "csv: % User Time + % Privileged Time = % CPU Utilization; iomoon's, others', the busiest worker's CPU and its wait, each with its unit"
like "$("$IOMOON" report "$TMP/cpu.json" --format markdown)" '\| p99 ms \| cpu load % \| iomoon cpu % \| Errors \|' "markdown: the machine's and iomoon's CPU, % in the header"
like "$("$IOMOON" report "$TMP/cpu.json" --format html)" '<th>cpu load</th><th>p99 ms</th><th>iomoon cpu</th>' "html: iomoon's CPU beside the machine's"
done_testing
