#!/bin/bash
# Signals stop iomoon within a second everywhere, not only inside a phase:
# in iomoon.sleep, in `iomoon ping`, while a sim device drains a long service
# time, in a files phase whose tree holds a FIFO someone keeps open (issue
# 49); SIGHUP as SIGTERM; an interrupted suite says how many of its
# phases did not run, and where --output went; a closed stdout (`| head
# -1`) ends the run cleanly and keeps --output; a second SIGINT still kills
# at once; hist:record(v, n) is O(1) in n; and `iomoon report` reading a
# long results.csv stops as interrupted.
#
# Each case starts iomoon in the background, signals it after a short delay
# and measures signal -> exit with date +%s%N. The bound is 1.5 s, not the
# promised 1 s: this runs on a busy shared 2-core VM. The old code took 3 to
# 7 s in each case, so the bound still tells the two apart.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

BOUND_MS=1500
# stop_after SECONDS SIGNAL PID: signal PID after SECONDS; sets rc and ms
# (exit status, and milliseconds from the signal to the exit).
stop_after() {
	local t0
	sleep "$1"
	t0=$(date +%s%N)
	kill -"$2" "$3"
	wait "$3"
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
}
fast() { ok $([ "$ms" -lt $BOUND_MS ] && echo 0 || echo 1) "$1: exited ${ms} ms after the signal (< $BOUND_MS)"; }

# iomoon.sleep returns early, interrupted() is then true, the script goes on
"$IOMOON" run --format none --quiet "$LUA_DIR/sleep.lua" >sleep.out 2>sleep.err &
stop_after 0.5 INT $!
is $rc 1 "SIGINT in iomoon.sleep: the script runs to its end, and the run is an interrupted one (exit 1)"
fast "SIGINT in iomoon.sleep(10)"
like "$(head -1 sleep.out)" '^slept [0-9]{3,4} ms, interrupted true$' "sleep returned early and iomoon.interrupted() is true"
like "$(sed -n 2p sleep.out)" '^run: (raised interrupted|interrupted result)$' "the next iomoon.run does not measure anything"

# ping -i 4: statistics, then exit 0 (as ioping does on SIGINT)
dd if=/dev/urandom of=ping.dat bs=1M count=1 status=none
"$IOMOON" ping -i 4 ping.dat >ping.out 2>ping.err &
stop_after 0.5 INT $!
is $rc 0 "SIGINT in ping -i 4: exit 0, as ioping"
fast "SIGINT in ping -i 4"
like "$(cat ping.out)" 'request=1 time=' "ping printed its one request"
like "$(cat ping.out)" 'generated 1 requests in [0-9.]+ (ms|s)' "and its closing statistics"

# sim device with a 7 s service time: the end of a timed phase drops what is
# in flight instead of spinning two threads for 7 s (measured before: 7.0 s
# wall, 11.2 s of CPU)
/usr/bin/time -o sim.time -f "%e %U %S" "$IOMOON" run --format none --quiet "$LUA_DIR/sim.lua" 0.5s >sim.out 2>sim.err
read -r wall user sys < <(tail -1 sim.time) # after "Command exited with non-zero status" if any
is "$(cat sim.out)" "ios 0 interrupted false" "sim, 7 s service, 0.5 s phase: nothing completed, not interrupted"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 2.5 else 1)" "$wall"
ok $? "and the run took ${wall} s (< 2.5 s, not the 7 s service time)"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) + float(sys.argv[2]) < 1.0 else 1)" "$user" "$sys"
ok $? "and used ${user} s user + ${sys} s system CPU (< 1 s: no spinning)"
# ... and SIGINT during such a phase stops it at once
"$IOMOON" run --format none --quiet "$LUA_DIR/sim.lua" 30s >sim2.out 2>sim2.err &
stop_after 0.5 INT $!
is $rc 1 "SIGINT while a sim device has 7 s I/Os in flight: exit 1"
fast "SIGINT with sim I/Os in flight"
is "$(cat sim2.out)" "ios 0 interrupted true" "the phase is marked interrupted, the dropped I/Os are not counted"

# hist:record(v, n) is O(1): 1e12 records in well under a second
out=$(timeout -s KILL 10 "$IOMOON" run --format none --quiet "$LUA_DIR/hist.lua" 2>&1); ok $? "hist:record(1000, 1e12) returns (exit 0)"
is "$out" "1000000000000 1000.0 1000 1000 1000 fast" "it records 1e12 values of 1000 in under a second"
out=$("$IOMOON" run --format none --quiet /dev/stdin 2>&1 <<<'require("iomoon").hist():record(5, -3)'); rc=$?
is $rc 2 "hist:record with a negative count: exit 2"
like "$out" 'hist:record: count -3 is negative' "the message names the count"

# SIGHUP ends the run like SIGTERM: exit 1, the partial phase kept, marked.
# Under nohup (SIGHUP ignored when iomoon starts, and so in this test) it
# stays ignored, as it should: these checks cannot be made then.
if ! python3 -c 'import signal, sys; sys.exit(signal.getsignal(signal.SIGHUP) == signal.SIG_IGN)'; then
	for i in 1 2 3 4; do skip "SIGHUP is ignored here (nohup): iomoon keeps it so"; done
else
	"$IOMOON" quick --target hup.dat --size 16m --time 30 --format json --output hup.json --quiet >/dev/null 2>hup.err &
	stop_after 1.5 HUP $!
	is $rc 1 "SIGHUP during a phase: exit 1 (it used to kill the process)"
	fast "SIGHUP during a phase"
	python3 - hup.json <<-'PY'
	import json, sys
	p = json.load(open(sys.argv[1]))["phases"]
	assert len(p) == 1 and p[0]["interrupted"] is True and p[0]["ios"] > 0, p
	assert 0.3 < p[0]["seconds"] < 5, p[0]["seconds"]
	PY
	ok $? "SIGHUP: --output holds the partial phase, \"interrupted\": true"
	is "$(cat hup.err)" "iomoon quick: interrupted: the partial report (1 phase) is in hup.json" \
		"SIGHUP: stderr says where the partial report went"
fi

# SIGINT in a suite: stderr says how many of its phases ran and how many did
# not, and where the partial report went
"$IOMOON" suite "$LUA_DIR/five.lua" --engine sim --format json --output five.json --quiet >/dev/null 2>five.err &
stop_after 2.5 INT $!
is $rc 1 "SIGINT in a suite of 5 phases: exit 1"
n=$(python3 -c 'import json; print(len(json.load(open("five.json"))["phases"]))')
[ "$n" -ge 1 ] && [ "$n" -lt 5 ]; ok $? "the report holds the $n phases that ran (1 to 4)"
of=$([ "$n" -eq 1 ] && echo "1 phase" || echo "$n phases")
is "$(cat five.err)" "iomoon suite: interrupted: $n of 5 phases; $((5 - n)) not run; the partial report ($of) is in five.json" \
	"stderr: $n of 5 phases, $((5 - n)) not run, and where the partial report is"

# A closed stdout (| head -1) stops the run like SIGINT; --output survives
t0=$(date +%s%N)
"$IOMOON" run --format json --output chatty.json --quiet "$LUA_DIR/chatty.lua" 2>chatty.err | head -1 >/dev/null
rc=${PIPESTATUS[0]}
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
is $rc 1 "stdout closed under a script: exit 1 (not killed by SIGPIPE, 141)"
ok $([ $ms -lt 4500 ] && echo 0 || echo 1) "and it stopped early: ${ms} ms (6 phases of 1 s would take over 6 s)"
like "$(cat chatty.err)" 'standard output was closed' "one line on stderr says why"
python3 - chatty.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"]
names = [x["name"] for x in p]
assert 1 <= len(p) < 6 and names == ["p%d" % (i + 1) for i in range(len(p))], names
assert not p[0]["interrupted"] and p[0]["ios"] > 0, p[0]
# every phase after the first interrupted one, if any ran at all, is interrupted too
seen = False
for x in p:
    seen = seen or x["interrupted"]
    assert x["interrupted"] or not seen, names
PY
ok $? "--output is whole JSON with every phase that ran, in order"
# the table report on a closed stdout: the suite stops after a phase or two
t0=$(date +%s%N)
"$IOMOON" suite quick --target suite.dat --size 16m --time 1 --quiet 2>suite.err | head -1 >suite.out
rc=${PIPESTATUS[0]}
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
is $rc 1 "suite | head -1: exit 1"
ok $([ $ms -lt 5000 ] && echo 0 || echo 1) "and it stopped early: ${ms} ms (5 phases of 1 s take over 5 s)"
like "$(cat suite.out)" '^engine [a-z_]+, O_DIRECT, test area ' "head got the table's first line (how the phase ran, above the header)"

# a second SIGINT still ends the process at once
"$IOMOON" run --format none --quiet "$LUA_DIR/sleep-then-spin.lua" &
pid=$!
sleep 0.5
kill -INT $pid
stop_after 0.3 INT $pid
is $rc 130 "a second SIGINT kills the process (128 + SIGINT)"
fast "a second SIGINT"
# ... and so does any stop signal after another
"$IOMOON" run --format none --quiet "$LUA_DIR/sleep-then-spin.lua" &
pid=$!
sleep 0.5
kill -HUP $pid
stop_after 0.3 TERM $pid
is $rc 143 "SIGHUP then SIGTERM: the second kills the process (128 + SIGTERM)"
fast "SIGTERM after SIGHUP"

# under nohup (SIGHUP ignored from the start) a hangup changes nothing
nohup "$IOMOON" run --format none --quiet "$LUA_DIR/nohup.lua" >nohup.out 2>/dev/null &
pid=$!
sleep 0.3
kill -HUP $pid
wait $pid
is $? 0 "nohup: SIGHUP is still ignored (exit 0)"
is "$(cat nohup.out)" "done, interrupted false" "nohup: the script slept its second and was not interrupted"
# a FIFO at one of a files tree's names, held open by a writer (so a read
# of it would wait for ever): a mix of reads over the tree for 30 s stops
# within a second of SIGINT, SIGTERM or SIGHUP and writes its --output
mkdir fdir
"$IOMOON" run --format none --quiet "$LUA_DIR/files.lua" "$TMP/fdir" create
rm fdir/iomoon-files/w0/d0/f3 && mkfifo fdir/iomoon-files/w0/d0/f3
exec 7<>fdir/iomoon-files/w0/d0/f3
for eng in psync io_uring; do
	for sig in INT TERM HUP; do
		rm -f fifo.json
		timeout -k 1 8 "$IOMOON" run --format json --output fifo.json --quiet "$LUA_DIR/files.lua" "$TMP/fdir" read $eng \
			>/dev/null 2>fifo.err &
		job=$!
		sleep 1
		t0=$(date +%s%N)
		kill -$sig "$(pgrep -P $job)"
		wait $job
		rc=$?
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		is $rc 1 "$eng: SIG$sig in a files phase over a tree with a FIFO: exit 1 (not killed)"
		fast "$eng: SIG$sig, a FIFO in the tree"
		like "$(python3 -c 'import json; p=json.load(open("fifo.json"))["phases"][0]; print(p["interrupted"], p["first_error"]["message"])' 2>&1)" \
			"^True read iomoon-files/w0/d0/f3: Operation not permitted \(a FIFO" "$eng: SIG$sig: --output written, the FIFO an error naming it"
	done
done
exec 7>&-
rm -rf fdir
# a script busy in its own Lua loop, which never asks iomoon.interrupted():
# stopped a second after the signal (a run error, exit 1), report whole
"$IOMOON" run --format json --output busy.json "$LUA_DIR/spin.lua" 2>busy.err &
stop_after 0.5 INT $!
is $rc 1 "SIGINT in a busy Lua loop: exit 1"
ok $([ "$ms" -lt 2500 ] && echo 0 || echo 1) "stopped ${ms} ms after the signal (a second's grace, < 2500)"
like "$(cat busy.err)" "interrupted: the script did not stop within a second" "says why"
is "$(python3 -c 'import json; print(len(json.load(open("busy.json"))["phases"]))')" 1 "--output holds the phase that ran"

# iomoon report on a long IOMeter results.csv (60000 rows: seconds of
# reading, in the library's own code): SIGTERM and SIGINT end the reading
# as an interrupt (exit 1), where they were ignored (then exit 0)
python3 -c 'import sys; l = open(sys.argv[1]).read().split("\n"); l[48:48] = [l[47]] * 60000; open("many.csv", "w").write("\n".join(l))' \
	"$T/iometer/results.csv"
for sig in TERM INT; do
	"$IOMOON" report many.csv --format json >many.out 2>many.err &
	stop_after 0.5 $sig $!
	is "$rc" 1 "SIG$sig while report reads a long results.csv: exit 1 (interrupted)"
	fast "SIG$sig in report's reading"
	like "$(cat many.err)" "^iomoon report: interrupted while reading the results.csv" "... says so"
done
# tests/busy.sh (make test-busy): SIGTERM to it (a CI job's timeout) ends
# the command and its busy loops then, not when the command would have
# ended (30 s). (SIGINT: a job started with & ignores it, as a shell does;
# Ctrl-C reaches the command itself.)
if command -v stress-ng >/dev/null; then
	"$T/busy.sh" sleep 30 >busy.out 2>&1 &
	stop_after 1 TERM $!
	is "$rc" 143 "SIGTERM to busy.sh: exit 143"
	fast "SIGTERM to busy.sh running sleep 30"
	left=""
	for p in $(sed -n 's/.*pids\(.*\))$/\1/p' busy.out); do [ -d "/proc/$p" ] && left="$left $p"; done
	is "$left" "" "SIGTERM to busy.sh: its stress-ng loops are gone"
else
	skip "no stress-ng"; skip "no stress-ng"; skip "no stress-ng"
fi
done_testing
