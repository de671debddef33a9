#!/bin/bash
# Many hosts under MPI (doc/cluster.md), on this one machine: mpirun starts
# 2 or 4 ranks of the real binary. Every rank must return the same merged
# result; merged counts are the sum of the ranks', merged percentiles those
# of the union of every rank's per-I/O records; find_max takes the same
# path on every rank; {rank} targets are files of their own; an input
# error on one rank stops all with one message, before anything is made;
# a rank that stops (on_error = "stop"), is killed, or leaves its script
# early ends the others within the stated bound, never a hang.
# Run once, outside the ASan pass (Open MPI's own allocations are not
# ours to check): the sanitized build skips it.
. "$(dirname "$0")/lib.sh"
PIDS=""
stop_all() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	cleanup
}
trap stop_all EXIT
cd "$TMP" || exit 1

case "$IOMOON" in *asan*)
	skip "MPI runs: not under ASan (Open MPI's allocations are not ours)"
	done_testing
	exit 0
esac
if ! command -v mpirun >/dev/null || ! "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi '; then
	skip "mpirun or MPI support missing (make deps installs libopenmpi-dev and openmpi-bin)"
	done_testing
	exit 0
fi

# mpi N ARGS...: iomoon under mpirun with N ranks, bounded in time
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1
mpi() {
	local n=$1
	shift
	timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n "$n" "$IOMOON" "$@"
}

# ---- one host: nothing changes; iomoon.cluster says rank 0 of 1 ----
out=$("$IOMOON" run "$LUA_DIR/one-host.lua" 2>&1)
like "$out" $'0\t1\tfalse\ttrue\ttrue' "without mpirun: rank 0 of 1, no cluster fields in the result"

# ---- two ranks: the merge is exact and the same on every rank ----
mpi 2 run "$LUA_DIR/merge.lua" >merge.out 2>merge.err
ok $? "mpirun -n 2: a rate-paced phase runs on both ranks"
python3 - >py.out 2>&1 <<'PY'
import json, math
res = [json.load(open("res.%d.json" % i)) for i in range(2)]
lat = [int(x) for i in range(2) for x in open("lat.%d" % i)]
def strip(r):
    r = dict(r)
    for k in ("cluster",):  # end_ns is each rank's own time
        r[k] = {a: b for a, b in r[k].items() if a != "end_ns"}
    return r
print("same", json.dumps(strip(res[0]), sort_keys=True) == json.dumps(strip(res[1]), sort_keys=True))
r = res[0]
print("ios", r["ios"], sum(h["ios"] for h in r["hosts"]), sum(iv["ios"] for iv in r["intervals"]), len(lat))
# the histogram's answer for the union of every I/O: nearest rank, the
# middle of its bucket (7 sub-bucket bits), kept within min..max
def bucket(v):
    if v < 128: return v, 1
    e = v.bit_length() - 1
    w = 1 << (e - 7)
    return (v >> (e - 7)) << (e - 7), w
def pct(vals, p):
    s = sorted(vals)
    k = max(1, math.ceil(p / 100 * len(s)))
    lo, w = bucket(s[k - 1])
    return min(max(lo + (w - 1) // 2, s[0]), s[-1])
print("p50", r["lat"]["p50_ns"], pct(lat, 50))
print("p99", r["lat"]["p99_ns"], pct(lat, 99))
print("p999", r["lat"]["p999_ns"], pct(lat, 99.9))
print("max", r["lat"]["max_ns"], max(lat))
print("hosts", [h["rank"] for h in r["hosts"]], r["cluster"]["ranks"])
print("iops", round(r["iops"]), [round(h["iops"]) for h in r["hosts"]])
print("skew", r["cluster"]["start_skew_ns"])
import datetime
t = lambda s: datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
print("wall", abs(t(r["ended"]) - t(r["started"]) - r["seconds"]) < 0.002, 0 <= r["cpu"]["other_pct"] <= 100)
PY
cat py.out
like "$(cat py.out)" "same True" "every rank returns the same merged result (byte for byte in JSON)"
like "$(cat py.out)" "wall True True" "started and ended (rank 0's wall clock, the same on every rank) span the measured seconds; cpu.other_pct"
read -r _ ios hsum isum nlat <<<"$(grep '^ios' py.out)"
ok $([ "$ios" = "$hsum" ] && [ "$ios" = "$isum" ] && [ "$ios" = "$nlat" ]; echo $?) \
	"merged ios $ios = the ranks' ($hsum) = the intervals' ($isum) = the I/Os recorded ($nlat)"
for p in p50 p99 p999 max; do
	read -r _ got want <<<"$(grep "^$p " py.out)"
	is "$got" "$want" "merged $p = the $p of the union of both ranks' I/Os"
done
like "$(grep '^hosts' py.out)" "hosts \[0, 1\] 2" "result.hosts: one entry per rank, in order"
read -r _ iops h0 h1 <<<"$(grep '^iops' py.out | tr -d '[],')"
ok $([ "$iops" -ge 3800 ] && [ "$iops" -le 4200 ]; echo $?) "rate = 4000 is the cluster's: $iops IOPS in all"
ok $([ "$h0" -ge 1900 ] && [ "$h0" -le 2100 ] && [ "$h1" -ge 1900 ] && [ "$h1" -le 2100 ]; echo $?) \
	"split across the ranks: $h0 and $h1 IOPS"
read -r _ skew <<<"$(grep '^skew' py.out)"
ok $([ "$skew" -lt 50000000 ]; echo $?) "start skew measured: $skew ns (one host: under 50 ms)"
is "$(grep -c '^Test name' merge.out)" 1 "only rank 0 prints the table"

# ---- four ranks, streams, {rank} targets, --output by rank 0 ----
mpi 4 run --output four.csv --format csv "$LUA_DIR/four.lua" >four.out 2>four.err
ok $? "mpirun -n 4: a phase of two streams runs"
python3 - >py4.out <<'PY'
import json
rs = [json.load(open("four.%d.json" % i)) for i in range(4)]
same = all({k: v for k, v in r.items() if k != "target"} == {k: v for k, v in rs[0].items() if k != "target"} for r in rs)
r = rs[0]
print("same", same)
print("sums", r["ios"] == r["hsum"] == r["ivs"] == r["s1"] + r["s2"], r["s1"] == r["s1iv"], r["hosts"])
print("targets", " ".join(r["target"] if isinstance(r["target"], str) else r["target"][0] for r in rs))
PY
like "$(cat py4.out)" "same True" "4 ranks: the same merged figures on every rank"
like "$(cat py4.out)" "sums True True 4" "4 ranks: ios = the hosts' = the intervals' = the streams'; a stream's intervals add up"
for i in 0 1 2 3; do
	ok $([ "$(stat -c %s data.$i)" = 4194304 ] && [ -f "w.$(hostname).$i" ]; echo $?) "{rank} and {host}: rank $i has files of its own"
done
like "$(cat py4.out)" "targets .*data.0 .*data.1 .*data.2 .*data.3" "each rank's result names its own target"
ok $(grep -q '"four / reads"' four.csv || grep -q 'four / reads' four.csv; echo $?) "--output written (by rank 0)"
ok $([ ! -s four.out ]; echo $?) "with --output, nothing on standard output"

# ---- find_max follows one path on every rank ----
mpi 2 run "$LUA_DIR/fm.lua" >fm.out 2>fm.err
ok $? "find_max under mpirun -n 2"
echo "# rank 0: $(cat fm.0)"
ok $([ -s fm.0 ] && cmp -s fm.0 fm.1; echo $?) "find_max: the same probes, answer and decisions on both ranks"
read -r _ _ nprobes _ <fm.0
ok $([ "${nprobes:-0}" -ge 3 ]; echo $?) "find_max made $nprobes probes (a search, not one refusal)"

# ---- stop_if crossed on one rank: every rank's result says so ----
mpi 2 run "$LUA_DIR/stopif.lua" >stopif.out 2>stopif.err
ok $? "stop_if under mpirun -n 2"
echo "# rank 0: $(cat stopif.0)"
# (the rank that stops first may be either: a rank judges the merged
# interval when it has it, which holds rank 1's slow I/O)
like "$(cat stopif.0)" '^latency 2000000(\.0)? [0-9.]+ [01] early$' "rank 0's result says the stop_if crossed (the limit, the figure), and the phase ended early"
ok $(cmp -s stopif.0 stopif.1; echo $?) "the same result.stopped on both ranks"

# ---- an input error on one rank: one message, exit 2, nothing made ----
mpi 2 run "$LUA_DIR/bad.lua" >bad.out 2>bad.err
is $? 2 "an input error on rank 1: exit status 2"
cat bad.err | head -5 | sed 's/^/# /'
is "$(grep -c 'phase.qd' bad.err)" 1 "the message is printed once"
like "$(cat bad.err)" "phase.qd: .*rank 1 of 2" "it names the field and the rank"
ok $([ ! -e made.0 ] && [ ! -e made.1 ]; echo $?) "no target created on any rank"

# an error that is not iomoon's own (a metatable of the script's) is told as it is
mpi 2 run "$LUA_DIR/meta.lua" >meta.out 2>meta.err
like "$(head -1 meta.err)" "boom from a metatable \(on rank 1 of 2" "a rank's own Lua error in the check: its message, named by rank"

mpi 2 run "$LUA_DIR/shape.lua" >shape.out 2>shape.err
is $? 2 "ranks running phases of different durations: exit 2"
like "$(cat shape.err)" "differ in their duration" "the error says what differs"

# ---- a rank that leaves its script early ----
mpi 2 run "$LUA_DIR/early.lua" >early.out 2>early.err
rc=$?
ok $([ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; echo $?) "rank 1 left early: the run fails (exit $rc), no hang"
like "$(cat early.err)" "rank 1 ended its script" "rank 0 says which rank left"

# ---- on_error = "stop" on one rank stops all within the bound ----
if command -v nbdkit >/dev/null && "$IOMOON" list 2>/dev/null | grep -Eq '^  nbd +works'; then
	nbdkit --unix "$TMP/err.sock" --pidfile "$TMP/err.pid" --filter=error memory 16M error-rate=100% error=EIO
	for _ in $(seq 50); do [ -s "$TMP/err.pid" ] && break; sleep 0.1; done
	PIDS="$PIDS $(cat "$TMP/err.pid")"
	start=$(date +%s%N)
	mpi 2 run "$LUA_DIR/stop.lua" "nbd+unix:///?socket=$TMP/err.sock" >stop.out 2>stop.err
	rc=$?
	took=$((($(date +%s%N) - start) / 1000000))
	echo "# rank 0 saw: $(cat stop.0 2>/dev/null)"
	ok $([ "$rc" -ne 124 ] && [ "$took" -lt 10000 ]; echo $?) "an I/O error on rank 1 with on_error=stop ends a 30 s phase on every rank in ${took} ms"
	like "$(cat stop.0)" '"first":1' "the first error is rank 1's"
	like "$(cat stop.0)" '"stopped_by":1' "result.cluster.stopped_by names rank 1"
	like "$(cat stop.0)" '"h1":[1-9]' "result.hosts[2] counts rank 1's errors"
	ok $(cmp -s stop.0 stop.1; echo $?) "both ranks return the same result"
else
	skip "nbdkit missing: the on_error=stop case needs its error filter"
fi

# ---- a rank killed mid-phase ----
rm -f pid.0 pid.1
mpi 2 run "$LUA_DIR/kill.lua" >kill.out 2>kill.err &
mp=$!
for _ in $(seq 100); do [ -s pid.1 ] && break; sleep 0.1; done
sleep 1
start=$(date +%s%N)
kill -9 "$(cat pid.1)"
wait $mp
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
ok $([ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$took" -lt 10000 ]; echo $?) \
	"rank 1 killed (kill -9): the run ends with exit $rc in ${took} ms (the bound: 10 s)"
for _ in $(seq 50); do kill -0 "$(cat pid.0)" 2>/dev/null || break; sleep 0.1; done
ok $(! kill -0 "$(cat pid.0)" 2>/dev/null; echo $?) "no rank is left running (5 s after)"

# ---- SIGINT to mpirun: a complete partial report ----
mpi 2 run --output int.json --format json "$LUA_DIR/long.lua" >int.out 2>int.err &
mp=$!
for _ in $(seq 100); do grep -q '"first"' int.json 2>/dev/null && break; sleep 0.1; done
sleep 1
start=$(date +%s%N)
pkill -INT -x -P "$(pgrep -f "^timeout .*93-cluster/long\.lua" | head -1)" mpirun # mpirun itself, once (a second SIGINT kills at once)
wait $mp
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
ok $([ "$rc" = 1 ] && [ "$took" -lt 5000 ]; echo $?) "SIGINT to mpirun: exit $rc in ${took} ms (mpirun's SIGTERM comes after 1 s)"
python3 -c "
import json; d = json.load(open('int.json'))
print(' '.join('%s:%s:%d' % (p['name'], p['interrupted'], len(p['hosts'])) for p in d['phases']))" >int.py 2>&1
is "$(cat int.py)" "first:False:2 long:True:2" "rank 0 wrote the report: the interrupted phase merged from both ranks, no later phase"

# ---- a rank whose sampler stalls: the k-th intervals still cover the same time ----
rm -f spid.0 spid.1
mpi 2 run "$LUA_DIR/stall.lua" >stall.out 2>stall.err &
mp=$!
for _ in $(seq 100); do [ -s spid.1 ] && break; sleep 0.1; done
sleep 0.6
kill -STOP "$(cat spid.1)"; sleep 0.5; kill -CONT "$(cat spid.1)"
wait $mp
ok $? "rank 1 stopped for 0.5 s mid-phase: the phase still ends well"
is "$(cat stall.0 2>/dev/null)" "20 0 0 sum" "20 intervals of 0.1 s in time order, adding up to the total (intervals, going back, off length)"

# ---- quotas are the cluster's, split in whole blocks ----
mpi 2 run "$LUA_DIR/quota.lua" >quota.out 2>quota.err
is "$(cat quota.0 2>/dev/null)" "12k:3:12288 20k:5:20480 ios7:7:4+3" "bytes and ios quotas: the cluster's, exactly (3 and 5 blocks of 4k; 7 I/Os as 4 + 3)"
mpi 2 run "$LUA_DIR/quota1.lua" >quota1.out 2>quota1.err
is $? 2 "a byte quota of one block over two ranks: exit 2"
like "$(cat quota1.err)" "phase.bytes: 4096 cannot be split over 2 ranks" "the error says so"

# ---- what other ranks print: nothing, unless asked ----
is "$(mpi 2 run "$LUA_DIR/say.lua" 2>/dev/null | sort | tr '\n' ' ')" "hello from 0 " "ranks but 0 are silent"
is "$(IOMOON_ALL_RANKS=1 mpi 2 run "$LUA_DIR/say.lua" 2>/dev/null | sort | tr '\n' ' ')" "hello from 0 hello from 1 " \
	"IOMOON_ALL_RANKS=1: every rank speaks"

# ---- named specs per stream: counts that hashed alike (1,0 and 0,31) are told apart ----
mpi 2 run "$LUA_DIR/specs.lua" >specs.out 2>specs.err
is $? 2 "named specs differing per stream (1+0 on rank 0, 0+31 on rank 1): exit 2, not a reduction of two layouts"
like "$(cat specs.err)" "differ in their access specs" "the error says the named specs differ"

# ---- verify_only reads every rank's whole region (its default bytes are each rank's own) ----
is "$(mpi 2 run "$LUA_DIR/vonly.lua" 2>vonly.err | tail -1)" $'512\t256\t256\t1' \
	"verify_only under mpirun: each rank reads all of its own region, rank 1's spoiled last block is found"

# ---- a rank whose script fails says why: its message reaches rank 0, control bytes shown ----
mpi 2 run "$LUA_DIR/early2.lua" >early2.out 2>early2.err
like "$(head -1 early2.err)" 'rank 1 ended its script \(exit status 2: iomoon: [^ ]*/early2\.lua:3: no such table on this host: \\x1b\[31mx\)' \
	"rank 1's own error message reaches rank 0, on one line, its control bytes shown"

mpi 2 run "$LUA_DIR/late.lua" >late.out 2>late.err
like "$(head -1 late.err)" '^iomoon: rank 1 ended its script with exit status 2: iomoon: [^ ]*/late\.lua:4: failed after the last phase$' \
	"a rank failing after the last phase: rank 0 says which and why"

# ---- a rate is the cluster's: a rate on one rank only is a shape that differs ----
mpi 2 run "$LUA_DIR/rate1.lua" >rate1.out 2>rate1.err
is $? 2 "rate on rank 0 only: exit 2 (not rank 0 paced at 500 and results that differ by rank)"
like "$(head -1 rate1.err)" "phase 'p': the ranks' phases differ in their rate or schedule" "the error says the rates differ"

# ---- a replay on two ranks: every merged interval has the lag of both
# ranks' records (the largest within its histogram bucket of the largest
# record's lag) ----
python3 -c "
f = open('rep.iolog', 'w'); f.write('fio version 3 iolog\\n0 d add\\n0 d open\\n')
for i in range(3000): f.write('%d d read %d 4096\\n' % (i * 100, (i * 7919 % 1024) * 4096))
"
mpi 2 run --quiet --format none "$LUA_DIR/replay.lua" rep.iolog >rep.out 2>rep.err
ok $? "mpirun -n 2: a replay with intervals runs on both ranks"
python3 - >py.out 2>&1 <<'PY'
import json
r = json.load(open("rep.0.json"))
lags = [int(x) for i in range(2) for x in open("lag.%d" % i)]
ivs = r["intervals"]
print(len(ivs) > 1, all("lag_p99_ns" in iv and "lag_max_ns" in iv for iv in ivs),
      max(lags) <= max(iv["lag_max_ns"] for iv in ivs) <= max(lags) * (1 + 1 / 64) + 1, len(lags) == r["ios"] == 6000)
PY
is "$(cat py.out)" "True True True True" "  every merged interval has lag_p99_ns and lag_max_ns; the largest is the largest record's ($(head -c 300 rep.err))"
done_testing
