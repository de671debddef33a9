#!/bin/bash
# Verification across a power cut (after_crash, verify/crash.h), proven
# against a disk that lies on purpose: tests/crashdisk/crashdisk.c, an
# nbdkit plugin built here with a volatile write cache, modes that keep,
# drop, tear or misplace what a flush acknowledged, and a power cut of its
# own (kill -9 of itself) at a flush it picks. At every crash point the
# classes iomoon finds (result.crash) must equal the ground truth the disk
# logged, unit by unit (tests/crashdisk/truth.py). Then kill -9 of iomoon
# itself, on that disk and on a local file, loses nothing; and bad input.
. "$(dirname "$0")/lib.sh"
PIDS=""
stop_servers() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	cleanup
}
trap stop_servers EXIT
cd "$TMP" || exit 1

if ! command -v nbdkit >/dev/null || ! "$IOMOON" list 2>/dev/null | grep -Eq '^  nbd +works' ||
	[ ! -f /usr/include/nbdkit-plugin.h ]; then
	skip "nbdkit, nbdkit-plugin-dev or engine nbd missing (make deps installs them)"
	done_testing
	exit 0
fi
cc -shared -fPIC -O2 -Wall -Wextra -Werror -o crashdisk.so "$T/crashdisk/crashdisk.c"
ok $? "the fault-injecting disk (an nbdkit plugin) builds"
TRUTH="$T/crashdisk/truth.py"
URL="nbd+unix:///?socket=$TMP/d.sock"

# serve ARGS...: nbdkit on $TMP/d.sock, its pid in $pid (and PIDS)
serve() {
	rm -f d.sock d.pid
	nbdkit --unix "$TMP/d.sock" --pidfile "$TMP/d.pid" "$@" || return 1
	for _ in $(seq 100); do [ -s d.pid ] && break; sleep 0.01; done
	pid=$(cat d.pid)
	PIDS="$PIDS $pid"
}
# gone PID: wait (2 s at most) until the process is no more, or a zombie
# (a daemon's parent is init, which may reap it late)
gone() {
	local st
	for _ in $(seq 200); do
		st=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)
		case "$st" in "" | Z | X) return 0 ;; esac
		sleep 0.01
	done
	return 1
}
# crash_point MODE K SEED [client=kill] [atomic]: a fresh disk and state,
# the writing phase until the disk's power cut at flush K, then the check
# through an honest server over what the disk persisted: p-N.json, p-N.log
n=0
crash_point() {
	local mode=$1 k=$2 seed=$3 client=${4:-} atomic=${5:-}
	n=$((n + 1))
	rm -rf "$IOMOON_STATE_DIR" && truncate -s 0 disk.img && truncate -s 1M disk.img
	serve "$TMP/crashdisk.so" file="$TMP/disk.img" mode="$mode" crash="$k" seed="$seed" log="$TMP/p-$n.log" \
		${client:+client=kill} || return 1
	# (a subshell that waits: bash's "Killed" of a client=kill run goes nowhere)
	("$IOMOON" run --format none "$LUA_DIR/write.lua" "$URL" "$seed" 1 >/dev/null 2>"p-$n.werr"
		echo "$?" >"p-$n.wrc") 2>/dev/null
	gone "$pid" || return 1
	serve file "$TMP/disk.img" || return 1
	"$IOMOON" run --format json "$LUA_DIR/check.lua" "$URL" >"p-$n.json" 2>"p-$n.err"
	echo "$?" >"p-$n.rc"
	echo "p-$n.json p-$n.log" >>points
	if [ -n "$atomic" ]; then # the same disk judged again, torn units failing
		"$IOMOON" run --format json "$LUA_DIR/check.lua" "$URL" atomic >"p-$n-atomic.json" 2>/dev/null
		echo "$?" >"p-$n-atomic.rc"
		echo "p-$n-atomic.json p-$n.log atomic" >>points
	fi
	kill "$pid"
	gone "$pid"
}
# run_mode MODE [kill] [atomic] [POINTS]: 20 (POINTS) crash points of MODE
# (flush 1 to 30, seeds from the test's own sequence): classes equal to
# the ground truth at each
RANDOM=28
run_mode() {
	local mode=$1 client=${2:-} atomic=${3:-} points=${4:-20} from=$((n + 1)) i bad
	: >points
	for i in $(seq "$points"); do
		crash_point "$mode" $((1 + RANDOM % 30)) "$RANDOM" "$client" "$atomic"
	done
	bad=$(python3 "$TRUTH" points | grep -v ': ok$')
	is "$(grep -vc atomic points) $bad" "$points " \
		"$mode${client:+, iomoon killed}${atomic:+, atomic}: at $points crash points iomoon's classes equal the disk's ground truth"
	sums=$(python3 - "$from" "$n" <<'PY'
import json, sys
t = {}
for i in range(int(sys.argv[1]), int(sys.argv[2]) + 1):
    c = json.load(open("p-%d.json" % i))["phases"][0].get("crash", {})
    for k, v in c.items():
        if isinstance(v, int) and not isinstance(v, bool):
            t[k] = t.get(k, 0) + v
print(" ".join("%s=%d" % (k, t.get(k, 0)) for k in
               ["durable_ok", "lost_durable", "unflushed_kept", "unflushed_lost", "torn", "corrupt", "misdirected"]))
PY
)
	echo "# $mode: $sums"
	rcs=$(for i in $(seq "$from" "$n"); do cat "p-$i.rc"; done | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
	echo "# $mode: exit statuses of the checks: $rcs"
	wrcs=$(for i in $(seq "$from" "$n"); do cat "p-$i.wrc"; done | sort -u | tr '\n' ' ')
	arcs=$(for i in $(seq "$from" "$n"); do cat "p-$i-atomic.rc" 2>/dev/null; done | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
}
count() { printf '%s\n' "$sums" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# ---- an honest disk: never a lost durable write, never a false alarm ----
run_mode honest
is "$(count lost_durable)" 0 "honest: 0 lost durable writes over the 20 crash points"
[ "$(count durable_ok)" -gt 0 ] && [ "$(count unflushed_lost)" -gt 0 ] && [ "$(count unflushed_kept)" -gt 0 ]
ok $? "honest: units durable, and unflushed writes kept and lost (allowed), all told apart"
like "$rcs" "^ *20 0 $" "honest: every check exits 0 (units the disk was free to lose are no failure)"
is "$wrcs" "1 " "every writing phase ends at the power cut, with exit 1"

# ---- a disk that acknowledges flushes and keeps nothing ----
run_mode lie
[ "$(count lost_durable)" -gt "$(count durable_ok)" ]
ok $? "lie: lost durable writes, more than units durable (those hold a later write the cut let through)"
like "$rcs" "^ *20 1 $" "lie: every check fails with exit 1 (on_error aside)"
like "$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(p["failed"], p["error"], p["errors_by_errno"])' p-$n.json)" \
	"^True after the crash, [0-9]+ units? do(es)? not hold what the storage made durable .*'lost_durable': [0-9]+" \
	"lie: result.failed, the error says why, the lost units are errors of their own name"

# ---- a flush that persists only part of the cache ----
run_mode partial
[ "$(count lost_durable)" -gt 0 ] && [ "$(count durable_ok)" -gt 0 ]
ok $? "partial: lost durable writes among durable ones"

# ---- torn writes at the power cut ----
run_mode torn "" atomic
[ "$(count torn)" -gt 0 ] && [ "$(count lost_durable)" = 0 ]
ok $? "torn: torn units found, no durable write lost"
like "$rcs" "^ *20 0 $" "torn: allowed without atomic (every check exits 0)"
like "$arcs" " 1 " "torn, atomic = true: the same disks judged again, those with torn units exit 1"

# ---- writes landing at the wrong offset ----
run_mode misdirect
[ "$(count misdirected)" -gt 0 ] && [ "$(count lost_durable)" -gt 0 ]
ok $? "misdirect: each misplaced write found where it landed, and lost where it belonged"

# ---- kill -9 of iomoon itself, then the disk's power cut ----
run_mode honest kill "" 10
is "$(count lost_durable)" 0 "iomoon killed, then the power cut of an honest disk: 0 lost durable writes"
is "$wrcs" "137 " "every writer was killed (kill -9)"

# ---- more in flight: an honest disk at qd 8 never has a lost durable write ----
: >points
for i in 1 2 3 4 5; do
	rm -rf "$IOMOON_STATE_DIR" && truncate -s 0 disk.img && truncate -s 1M disk.img
	serve "$TMP/crashdisk.so" file="$TMP/disk.img" mode=honest crash=$((3 * i + 2)) seed=$i log="$TMP/q.log"
	"$IOMOON" run --format none "$LUA_DIR/write.lua" "$URL" "$i" 8 >/dev/null 2>&1
	gone "$pid"
	serve file "$TMP/disk.img"
	"$IOMOON" run --format json "$LUA_DIR/check.lua" "$URL" >"q-$i.json" 2>/dev/null
	echo "$?" >>points
	kill "$pid"
	gone "$pid"
done
is "$(sort -u points | tr '\n' ' ')$(python3 -c 'import json,sys; print(sum(json.load(open(f))["phases"][0]["crash"]["lost_durable"] for f in sys.argv[1:]))' q-*.json)" \
	"0 0" "qd 8, 5 crash points on an honest disk: every check exits 0, 0 lost durable writes"

# ---- a local file: kill -9 of iomoon mid-write loses nothing (the page cache holds) ----
for i in 1 2 3 4; do
	rm -rf "$IOMOON_STATE_DIR" local.img
	"$IOMOON" run --format none "$LUA_DIR/local.lua" "$TMP/local.img" "$i" $([ "$i" = 4 ] && echo dsync) >/dev/null 2>&1 &
	job=$!
	# kill it once the record says something is durable, and a few flushes more
	python3 - "$IOMOON_STATE_DIR" $((i * 20)) <<'PY'
import glob, os, struct, sys, time
for _ in range(1000):
    for f in glob.glob(sys.argv[1] + "/*.iomoon-durable"):
        d = open(f, "rb").read()[4096:]
        half = d[:len(d) // 2]
        if sum(1 for k in range(0, len(half), 8) if half[k:k + 8] != bytes(8)) >= int(sys.argv[2]):
            sys.exit(0)
    time.sleep(0.005)
sys.exit(1)
PY
	kill -9 "$job"
	wait "$job" 2>/dev/null
	"$IOMOON" run --format json "$LUA_DIR/check.lua" "$TMP/local.img" >"l-$i.json" 2>"l-$i.err"
	echo "$? $(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["phases"][0]["crash"]; print(c["lost_durable"], c["unflushed_lost"] <= 4, c["durable_ok"] > 0)' "l-$i.json")" >>local
done
# (a write issued but not yet in the page cache at the kill is lost: qd 4 at most)
is "$(sort -u local | tr '\n' ' ')" "0 0 True True " \
	"a local file, iomoon killed 4 times mid-write (fdatasync; O_DSYNC): exit 0, 0 lost durable, unflushed lost only in flight"

# ---- the command line and the ready suite ----
"$IOMOON" verify "$TMP/local.img" --after-crash --quiet --format csv --output v.csv
is "$?" 0 "iomoon verify --after-crash on the last killed writer's file: exit 0"
is "$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]; print(r["Crash Lost Durable"], int(r["Crash Durable Ok"]) > 0)' v.csv)" \
	"0 True" "its CSV has the classes (Crash ... columns)"
out=$("$IOMOON" verify "$TMP/local.img" --after-crash --quiet)
like "$out" "after the crash: [0-9]+ durable, 0 lost durable, [0-9]+ unflushed kept, [0-4] unflushed lost, 0 torn, 0 corrupt" \
	"the table says the classes"
like "$out" "checked [0-9]+ units of 4 KiB against the durability record \(each unit's last write issued and made durable\), the state's map of written units was not saved \(its run did not end\): the record alone said what was written; after the crash: " \
	"a killed writer's check says once what it checked: every unit against the durability record"
ok "$(grep -qE 'nothing written with verification|skipped as never written' <<<"$out"; [ $? -ne 0 ]; echo $?)" \
	"... not 'nothing written with verification' beside the durable units"
"$IOMOON" suite power-cut --target "$TMP/pc.dat" --size 4m --time 5 --ios 512 --quiet --format json >pc.json
is "$?" 0 "suite power-cut, run whole without a cut: exit 0"
is "$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"]; print(len(p), p[1]["crash"]["lost_durable"], p[1]["crash"]["durable_ok"] + p[1]["crash"]["unflushed_kept"] > 0)' pc.json)" \
	"2 0 True" "its second phase judged the first's writes: none lost"
dd if=/dev/zero of=ex.img bs=1M count=4 status=none
"$IOMOON" suite power-cut --target "$TMP/ex.img" --allow-write --time 5 --ios 512 --quiet --format none
is "$?" 0 "suite power-cut on a file that exists with no state yet: exit 0 (its after_crash phase is checked for the state the first phase makes; before: refused up front)"
head -c 4M /dev/urandom >ex2.img
"$IOMOON" suite power-cut --target "$TMP/ex2.img" --allow-write --time 5 --ios 512 --quiet --format json >ex2.json
is "$? $(python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["phases"][1]["verify"]; print(v["units_unexpected"], v["units_skipped"] > 0, v["skip_unwritten"])' ex2.json)" \
	"0 0 True True" \
	"  on a file of old data (a disk not blank): exit 0, units never written skipped after the crash (before: 757 corrupt)"
"$IOMOON" quick --target "$TMP/ex2.img" --read 0 --ios 64 --quiet --format none
"$IOMOON" suite power-cut --target "$TMP/ex2.img" --allow-write --time 5 --ios 512 --quiet --format none
is "$?" 0 "  and on it again after a write without verification made its state stale: exit 0 (before: refused up front)"

# ---- the state on another disk (verify_state, --verify-state): the
# record survives where the disk under test does not ----
rm -rf "$IOMOON_STATE_DIR" other && truncate -s 0 disk.img && truncate -s 1M disk.img
serve "$TMP/crashdisk.so" file="$TMP/disk.img" mode=lie crash=12 seed=7 log="$TMP/o.log"
"$IOMOON" suite power-cut --target "$URL" --allow-write --verify-state "$TMP/other" --time 20 --quiet \
	--format none >/dev/null 2>&1
gone "$pid"
is "$(ls "$TMP/other" | sed 's/.*\.//' | sort | tr '\n' ' ')|$(ls -A "$IOMOON_STATE_DIR" | sed 's/.*\.//')|$(cat "$IOMOON_STATE_DIR"/*.iomoon-dirs)" \
	"iomoon-durable iomoon-lock iomoon-verify |iomoon-dirs|$TMP/other" \
	"--verify-state DIR: the state, its lock and the durability record are in DIR; IOMOON_STATE_DIR has only the list naming DIR"
serve file "$TMP/disk.img"
out=$("$IOMOON" verify "$URL" --after-crash --quiet 2>&1)
is "$?" 2 "after the cut, verify --after-crash without --verify-state: exit 2"
like "$out" "no verification state to judge it by in $IOMOON_STATE_DIR .*give the verify_state" \
	"  it names the directory it looked in, and what to give"
"$IOMOON" verify "$URL" --after-crash --verify-state "$TMP/other" --quiet --format json >o.json
is "$?" 1 "verify --after-crash --verify-state DIR on the lying disk: exit 1"
is "$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["phases"][0]["crash"]; print(c["lost_durable"] > 0)' o.json)" \
	"True" "  the record kept in DIR finds the durable writes the disk lost"
kill "$pid"
gone "$pid"
mkdir sb
"$IOMOON" run --format none "$LUA_DIR/twodirs.lua" "$TMP/two.img" "$TMP/sa" "$TMP/sb" 2>two.err >/dev/null
is "$?" 0 "one run, a target written with verify_state A, then read with none"
like "$(cat two.err)" "B: false .*phase.verify_state: .*/sb, but target .*two.img keeps its verification state in .*/sa in this run" \
	"  a phase asking for another directory for it in that run is refused, naming both"
like "$(cat two.err)" "none: 0 [1-9]" "  a phase giving none uses the run's (A), and finds the units durable"
is "$(ls -A "$TMP/sb")" "" "  nothing was made in the refused directory"
echo 'require("iomoon").run { target = arg[1], bs = "4k", read = 100, ios = 8, verify_state = arg[2] }' >bad3.lua
out=$("$IOMOON" run --format none bad3.lua "$TMP/two.img" "$TMP/sc" 2>&1)
is "$?" 2 "verify_state on a phase that neither writes nor verifies with crc32c: exit 2"
like "$out" "phase.verify_state: given, but the phase neither verifies with crc32c nor writes" "  it says why"
# a writer with another directory, or none, outdates every other state of
# the target (the list beside the default's): a later check against one
# is refused, not blamed on the storage (before: 188 corrupt, 1578 foreign)
"$IOMOON" suite power-cut --target "$TMP/x1.img" --size 4m --time 5 --ios 400 --verify-state "$TMP/qs" --quiet --format none
"$IOMOON" quick --target "$TMP/x1.img" --read 0 --ios 100 --quiet --format none
out=$("$IOMOON" verify "$TMP/x1.img" --after-crash --verify-state "$TMP/qs" --quiet --format none 2>&1)
is "$?" 2 "a state in DIR, then a write without verification and without DIR: the check with DIR is refused, exit 2"
like "$out" "x1.img was written since the last verified write this state knows of" "  it says the state is outdated"
"$IOMOON" suite power-cut --target "$TMP/x2.img" --size 4m --time 5 --ios 400 --quiet --format none
"$IOMOON" suite power-cut --target "$TMP/x2.img" --time 5 --ios 400 --verify-state "$TMP/nn" --quiet --format none
a=$?
"$IOMOON" verify "$TMP/x2.img" --after-crash --quiet --format none 2>/dev/null
b=$?
"$IOMOON" verify "$TMP/x2.img" --after-crash --verify-state "$TMP/nn" --quiet --format none
c=$?
"$IOMOON" suite power-cut --target "$TMP/x2.img" --time 5 --ios 400 --quiet --format none
d=$?
"$IOMOON" verify "$TMP/x2.img" --after-crash --verify-state "$TMP/nn" --quiet --format none 2>/dev/null
is "$a $b $c $d $?" "0 2 0 0 2" \
	"default state, then DIR: the default's is outdated (exit 2), DIR's holds; then the default again: DIR's outdated"
ln -s /nowhere/x dangling
out=$("$IOMOON" suite power-cut --target "$TMP/x2.img" --verify-state "$TMP/dangling" --time 1 --quiet 2>&1)
is "$?" 2 "--verify-state a symbolic link to nothing: exit 2 (before: exit 1, the lock file)"
like "$out" "dangling is a symbolic link to nothing" "  it says so"
out=$("$IOMOON" verify "$TMP/x2.img" --verify-state "$TMP/nothere" 2>&1)
is "$?" 2 "verify --verify-state a directory that is not there: exit 2 (before: exit 0, the headers alone)"
like "$out" "^iomoon verify: --verify-state: .*nothere cannot hold .* does not exist" "  named by its option"
out=$("$IOMOON" verify "$TMP/x2.img" --verify-state --quiet 2>&1)
is "$?" 2 "--verify-state --quiet: exit 2 (before: --quiet taken as the directory)"
like "$out" "--verify-state needs a value, not the option --quiet" "  it says so"
touch notadir
out=$("$IOMOON" suite power-cut --target "$TMP/nd.img" --size 1m --verify-state "$TMP/notadir/x" --time 1 --quiet 2>&1)
is "$?" 2 "--verify-state under a file: exit 2"
like "$out" "--verify-state: .*notadir/x cannot hold the verification state" "  it names the option and the directory"
[ ! -e "$TMP/nd.img" ] && [ ! -e "$TMP/sc" ]
ok $? "  nothing was created"
out=$("$IOMOON" suite quick --target "$TMP/q.img" --size 1m --verify-state "$TMP/sd" --time 1 2>&1)
is "$?" 2 "--verify-state for a suite that does not verify: exit 2"
like "$out" "--verify-state: suite quick has no phase that verifies with crc32c" "  it says so"

# ---- damage is named by what it is: a payload overwritten (corrupt, with
# the stored and computed checksums), a header overwritten (missing), and
# a unit written without verification before (unexpected, as the check
# without a crash says; before: "corrupt ... stored 0x00000000, computed
# 0x00000000" for all three) ----
"$IOMOON" quick --target "$TMP/dmg.img" --size 1m --read 0 --ios 300 --quiet --format none
"$IOMOON" run --format none "$LUA_DIR/dmg.lua" "$TMP/dmg.img"
printf 'XXXX' | dd of="$TMP/dmg.img" bs=1 seek=$((4096 * 5 + 700)) conv=notrunc status=none
printf 'YYYYYYYY' | dd of="$TMP/dmg.img" bs=1 seek=$((4096 * 9)) conv=notrunc status=none
"$IOMOON" run --format json "$LUA_DIR/check.lua" "$TMP/dmg.img" strict >dmg.json
is "$?" 1 "after_crash (skip_unwritten = false) on damaged units: exit 1"
python3 - dmg.json >dmg.out <<'PY'
import json, re, sys
p = json.load(open(sys.argv[1]))["phases"][0]
msgs = {e["offset"]: e["message"] for e in p["first_errors"]}
m = re.search(r"stored (0x[0-9a-f]+), computed (0x[0-9a-f]+)", msgs.get(20480, ""))
print(bool(m) and m.group(1) != m.group(2), "missing: no header" in msgs.get(36864, ""),
      p["errors_by_errno"].get("unexpected", 0) > 0, p["crash"]["corrupt"] == p["errors"])
PY
is "$(cat dmg.out)" "True True True True" \
	"  a payload's damage names both checksums, a header's is missing, an unverified write's unexpected; all counted corrupt"
"$IOMOON" verify "$TMP/dmg.img" --after-crash --quiet --format json >dmg2.json
is "$? $(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(p["errors"], p["crash"]["corrupt"], p["verify"]["units_skipped"] > 0)' dmg2.json)" \
	"1 2 2 True" \
	"  by default (iomoon verify): the two damaged units fail it, the old data where nothing was verified is skipped"

# ---- bad input: one line, exit 2, nothing read or written ----
rm -rf "$IOMOON_STATE_DIR"
dd if=/dev/zero of=plain.img bs=1M count=1 status=none
before=$(md5sum <plain.img)
out=$("$IOMOON" run --format none "$LUA_DIR/check.lua" "$TMP/plain.img" 2>&1)
is "$?" 2 "after_crash on a target with no state: exit 2"
like "$out" "after_crash: target .*plain.img has no verification state" "it says there is no state"
echo 'require("iomoon").run { target = arg[1], bs = "4k", verify = "crc32c", after_crash = true }' >bad1.lua
out=$("$IOMOON" run --format none bad1.lua "$TMP/plain.img" 2>&1)
is "$?" 2 "after_crash without verify_only: exit 2"
like "$out" "after_crash: true, but verify_only is not" "it says verify_only is needed"
echo 'require("iomoon").run { target = arg[1], bs = "4k", verify = "crc32c", verify_only = true, atomic = true }' >bad2.lua
out=$("$IOMOON" run --format none bad2.lua "$TMP/plain.img" 2>&1)
is "$?" 2 "atomic without after_crash: exit 2"
like "$out" "atomic: true, but after_crash is not" "it says after_crash is needed"
is "$(md5sum <plain.img) $(ls -A "$IOMOON_STATE_DIR" 2>/dev/null | wc -l)" "$before 0" \
	"the refused target is unchanged, and no state was made"
"$IOMOON" run --format none "$LUA_DIR/nosync.lua" "$TMP/nosync.img" >/dev/null 2>&1
before=$(md5sum <nosync.img)
out=$("$IOMOON" run --format none "$LUA_DIR/check.lua" "$TMP/nosync.img" 2>&1)
is "$?" 2 "after_crash on a state written without a durability point: exit 2"
like "$out" "no record of what was made durable" "it says no durability point was recorded"
is "$(md5sum <nosync.img)" "$before" "that target is unchanged"

done_testing
