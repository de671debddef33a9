#!/bin/bash
# I/Os in flight and who set the figures (result.inflight, .bottleneck),
# and the kernel as a witness (result.device): on sim, null, a file, a loop
# device of the test's own, tmpfs and streams; the warning in every report
# format that shows a row's trouble.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
F="$TMP/w.dat"
J() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[2])' "$@"; }
# The verdict a phase of a quiet machine gets, "device", unless its own
# witnesses say the machine was busy (a worker waited for a CPU 10 % of
# its time while other processes held 10 % of the machine's in user mode;
# a loop device's workers are kernel threads, not in it): then "host".
# busy FILE PHASE [why]: the verdict, or with why the reason it is host.
busy() {
	J "$1" '
c = d["phases"][int(sys.argv[3])]["cpu"]; host = c["wait_pct"] >= 10 and c["other_user_pct"] >= 10
if len(sys.argv) > 4: print("; the machine was busy: waited %.0f %%, others %.0f %%" % (c["wait_pct"], c["other_user_pct"]) if host else "")
else: print("host" if host else "device")' "$2" ${3+"$3"}
}

# sim: QD 16 at 1 ms keeps 16 in flight; Little's law on its own figures
"$IOMOON" run --format json --quiet "$T/lua/41-witness/sim.lua" "$F" >sim.json
J sim.json '
p = d["phases"][0]; i = p["inflight"]
little = p["iops"] * p["lat"]["mean_ns"] / 1e9
print(i["allowed"], i["max"], i["mean"] >= 15.5, abs(little - i["mean"]) / i["mean"] < 0.05, p["bottleneck"],
      "# mean %.2f, iops x mean latency %.2f" % (i["mean"], little))' >out
is "$(cut -d'#' -f1 out)" "16 16 True True device " "sim at QD 16, 1 ms: 16 allowed, at least 15.5 in flight, Little's law within 5 %, device, busy machine or not ($(cut -d'#' -f2 out))"

# Little's law on a file: an I/O is in flight from its submission to its
# completion, as its latency counts it. One I/O per submission (--batch 1)
# at QD 32, so that the clock moves between the submissions of a turn; a
# quota with no ramp, so that every I/O of the measured time is counted
# whole on both sides, and the law holds whatever the load (within 1 %)
little() { # FILE LABEL: IOPS x mean latency against inflight.mean
	J "$1" '
p = d["phases"][0]; i = p["inflight"]; little = p["iops"] * p["lat"]["mean_ns"] / 1e9
print(abs(little - i["mean"]) <= 0.01 * i["mean"], i["mean"] <= i["allowed"],
      "# IOPS x mean latency %.3f, inflight.mean %.3f of %d" % (little, i["mean"], i["allowed"]))' >out
	is "$(cut -d'#' -f1 out)" "True True " "$2: Little's law, IOPS x mean latency = inflight.mean within 1 % ($(cut -d'#' -f2 out))"
}
"$IOMOON" quick --target "$F" --size 16m --bs 4k --random 100 --qd 32 --batch 1 --ramp 0 --ios 20000 --format json --quiet >little.json
little little.json "a file at QD 32, one I/O a submission"

# Who set a file's figures: the device on a quiet machine, the host on a
# busy one (by the result's own witnesses, said in the name); never iomoon
# (its workers are not on a CPU 85 % of their time at QD 8, nor at QD 1
# with under one I/O in flight: a wait is not a busy CPU)
for qd in 8 1; do
	"$IOMOON" quick --target "$F" --bs 4k --random 100 --qd $qd --time 0.5s --format json --quiet >v$qd.json
	J v$qd.json 'p = d["phases"][0]; print(p["bottleneck"], "# %.2f of %d in flight" % (p["inflight"]["mean"], p["inflight"]["allowed"]))' >out
	is "$(cut -d'#' -f1 out)" "$(busy v$qd.json 0) " "a file at QD $qd: $(busy v$qd.json 0) ($(cut -d'#' -f2 out)$(busy v$qd.json 0 why))"
done

# A busy loop pinned on every CPU, iomoon a little less favoured (nice 5):
# its workers wait for a CPU others hold: host, with its witnesses (the
# workers' run delay from /proc/thread-self/schedstat, the machine's
# other work), and every report says what to do
SPIN=""
stop_spin() { for p in $SPIN; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; SPIN=""; }
trap 'stop_spin; cleanup' EXIT
trap 'exit 143' TERM INT HUP
for c in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$c" sh -c 'while :; do :; done' &
	SPIN="$SPIN $!"
done
nice -n 5 "$IOMOON" quick --target "$F" --bs 4k --random 100 --qd 8 --time 1s --format json --quiet >spin.json
stop_spin
J spin.json '
p = d["phases"][0]; c = p["cpu"]
print(p["bottleneck"], c["wait_pct"] >= 10, c["other_user_pct"] >= 10, "# waited %.0f %%, others %.0f %% of the machine in user mode, iomoon %.1f %%" % (
      c["wait_pct"], c["other_user_pct"], c["self_pct"]))' >out
is "$(cut -d'#' -f1 out)" "host True True " "a file with a busy loop on every CPU: host ($(cut -d'#' -f2 out))"
"$IOMOON" report spin.json --format table | grep -q "host busy: other processes held .* of the CPU, iomoon's workers waited for one .*: run again on a quiet host"
ok $? "  the table says others held the CPU, and to run again on a quiet host"

# paced below what the device does: rate
J sim.json 'p = d["phases"][1]; print(p["bottleneck"], p["inflight"]["mean"] < 0.9 * 16, "# %.2f in flight" % p["inflight"]["mean"])' >out
is "$(cut -d'#' -f1 out)" "rate True " "sim paced at 2000 IOPS: about 2 of 16 in flight, rate ($(cut -d'#' -f2 out))"

# null completes at once: tool, and every format says so
"$IOMOON" quick --engine null --target "$F" --size 16m --qd 8 --ios 20000 --format json --quiet >null.json
is "$(J null.json 'print(d["phases"][0]["bottleneck"])')" "tool" "engine null: tool"
for f in table markdown analyzer html; do
	"$IOMOON" report null.json --format $f >null.$f
	grep -q "engine null: iomoon's own speed, not a device's" null.$f; ok $? "  report --format $f says so"
done
"$IOMOON" report null.json --format csv | python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin))[0]; print(r["Bottleneck"], float(r["In Flight (mean)"]) > 0, r["Warning"])' >out
is "$(cat out)" "tool True engine null: iomoon's own speed, not a device's" "  report --format csv: Bottleneck, In Flight (mean) and Warning columns"
"$IOMOON" report sim.json --format table | grep -q "set these figures\|iomoon's own speed"; is $? 1 "  the sim run's table says nothing of it"
# a result that says "tool" on a real engine: the warning names iomoon's
# CPU, not the I/Os in flight (16 of 16 reads as a saturated device)
J null.json '
p = d["phases"][0]; p["engine"] = "io_uring"; p["inflight"]["mean"] = 5.25
p["cpu"].update(worker_max_pct = 93.4, wait_pct = 2, self_pct = 48.2, other_pct = 3)
json.dump(d, open("tool.json", "w"))
p["bottleneck"] = "host"; p["cpu"].update(worker_max_pct = 40, wait_pct = 35.2, other_pct = 70.3, other_user_pct = 61.7)
json.dump(d, open("host.json", "w"))'
"$IOMOON" report tool.json --format table >out
like "$(cat out)" "iomoon's CPU, not the device, set these figures: its busiest worker was on a CPU 93 % of its time \\(iomoon 48 % of the machine\\): use more workers" \
	"a tool row on io_uring: iomoon's own CPU, by its witnesses, and what to do"
grep -q "I/Os in flight" out; is $? 1 "  not the I/Os in flight"
for f in table csv markdown html; do
	"$IOMOON" report host.json --format $f >host.$f
	grep -q "host busy: other processes held 62 % of the CPU, iomoon's workers waited for one 35 % of their time: run again on a quiet host" host.$f
	ok $? "a host row: report --format $f says who held the CPU and what to do"
done

# a file on a block device: the kernel's counts of it, beside iomoon's
dev=$(python3 -c 'import os,sys; s=os.stat(sys.argv[1]); print(os.path.basename(os.readlink("/sys/dev/block/%d:%d" % (os.major(s.st_dev), os.minor(s.st_dev)))) if os.major(s.st_dev) else "")' "$TMP" 2>/dev/null)
if [ -n "$dev" ]; then
	"$IOMOON" quick --target "$F" --qd 8 --ios 2000 --format json --quiet >file.json
	J file.json '
p = d["phases"][0]; v = p["device"]
print(v["name"], v["reads"] >= 0.9 * p["ios"], v["read_mean_ns"] > 0, v["inflight_mean"] > 0, v["seconds"] > 0,
      type(v["others"]).__name__, "# %d reads for %d I/Os, %.0f us a request" % (v["reads"], p["ios"], v["read_mean_ns"] / 1e3))' >out
	is "$(cut -d'#' -f1 out)" "$dev True True True True bool " "a file in \$TMP: the device under it ($dev), its reads, mean time, in flight ($(cut -d'#' -f2 out))"
	sched=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$dev/queue/scheduler" 2>/dev/null)
	[ -n "$sched" ] || sched=$(cat "/sys/block/$dev/queue/scheduler" 2>/dev/null)
	is "$(J file.json 'print(d["machine"]["targets"][0].get("scheduler"))')" "$sched" \
		"  the machine's description names the disk's I/O scheduler ($sched), as /sys says"
	"$IOMOON" report file.json --format html | grep -q "scheduler $sched"
	ok $? "  the HTML report's targets table shows it"
else
	skip "\$TMP is on no block device"
fi

# a loop device of our own, which nothing else reads: the counts match
if L=$(losetup -f --show "$(truncate -s 64m "$TMP/loop.img"; echo "$TMP/loop.img")" 2>/dev/null); then
	LOOPS="$LOOPS $L"
	udevadm settle 2>/dev/null
	"$IOMOON" quick --target "$L" --bs 4k --random 100 --qd 32 --batch 1 --ramp 0 --ios 20000 --format json --quiet >little.json
	little little.json "a loop device at QD 32"
	# the kernel's witness: the loop device holds each I/O for a part of
	# iomoon's time (its time in queue over its elapsed time, from /sys)
	J little.json 'p = d["phases"][0]; v = p["device"]
print(v["others"], 0 < v["inflight_mean"] <= 1.05 * p["inflight"]["mean"], "# %.2f at the device, %.2f in iomoon" % (v["inflight_mean"], p["inflight"]["mean"]))' >out
	is "$(cut -d'#' -f1 out)" "False True " "  the device's own in-flight count is at most iomoon's ($(cut -d'#' -f2 out))"
	# a QD 1 read of it: its node is on devtmpfs, which says tmpfs, yet the
	# device served it: device (host on a busy machine), never tool ("0.7 of
	# 1 I/Os in flight" was an in-memory verdict on a block device)
	"$IOMOON" quick --target "$L" --bs 4k --random 100 --qd 1 --time 0.5s --format json --quiet >qd1.json
	J qd1.json 'p = d["phases"][0]; print(p["bottleneck"], "# %.2f of 1 in flight, %.2f at the device" % (p["inflight"]["mean"], p["device"]["inflight_mean"]))' >out
	is "$(cut -d'#' -f1 out)" "$(busy qd1.json 0) " "a loop device at QD 1: $(busy qd1.json 0), not tool ($(cut -d'#' -f2 out)$(busy qd1.json 0 why))"
	"$IOMOON" quick --target "$L" --qd 4 --ios 3000 --format json --quiet >loop.json
	J loop.json '
p = d["phases"][0]; v = p["device"]
print(v["name"], 0.9 * p["ios"] <= v["reads"] <= p["ios"] + 64, v["writes"] == 0, v["others"],
      p["lat"]["mean_ns"] >= 0.9 * v["read_mean_ns"], "# %d reads, iomoon %d; %.1f us a request at the device, %.1f us in iomoon" % (
      v["reads"], p["ios"], v["read_mean_ns"] / 1e3, p["lat"]["mean_ns"] / 1e3))' >out
	is "$(cut -d'#' -f1 out)" "${L#/dev/} True True False True " "a loop device: its own reads, no writes, no others, iomoon's latency holds the device's ($(cut -d'#' -f2 out))"
	# short phases without a ramp: the kernel's counts are read before the
	# workers go, so the device saw at least every byte iomoon wrote (read
	# as the first I/Os completed, some were missing: the oracle's seed 7)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$IOMOON" quick --target "$L" --allow-write --engine psync --bs 1k --read 0 --random 0 --workers 2 --ios 64 \
			--format json --quiet >short.json
		J short.json 'p = d["phases"][0]; print(p["device"]["write_bytes"] >= p["bytes"], p["bytes"], p["device"]["write_bytes"])'
	done >out
	is "$(cut -d' ' -f1 out | sort | uniq -c | sed 's/^ *//')" "10 True" "10 short phases: the device's window holds every byte iomoon wrote ($(cut -d' ' -f2,3 out | tr '\n' ';'))"
	losetup -d "$L"; LOOPS="${LOOPS% $L}"
else
	skip "no loop device here"
fi

# tmpfs has no device to read; a stream's result has none of its own
S=$(mktemp -d /dev/shm/iomoon-test.XXXXXX)
"$IOMOON" quick --target "$S/t.dat" --size 4m --buffered --ios 100 --format json --quiet >shm.json
rm -rf "$S"
is "$(J shm.json 'print("device" in d["phases"][0], d["phases"][0]["bottleneck"])')" "False tool" \
	"a file on tmpfs: no device; the host's memory set the figures (tool)"
# the page cache: a file read once in full, then again, buffered: the
# device moves almost none of it, and the host set the figures
if [ -n "$dev" ]; then
	"$IOMOON" quick --target "$TMP/cache.dat" --size 8m --buffered --random 0 --ios 2048 --format none --quiet
	"$IOMOON" quick --target "$TMP/cache.dat" --buffered --ios 5000 --format json --quiet >cache.json
	# (reads alone: another program's writes to the same disk are not ours;
	# another's reads are, and make test runs a test beside this one)
	J cache.json 'p = d["phases"][0]; print(p["device"]["read_bytes"] < 0.1 * p["bytes"], p["bottleneck"], "# %d bytes read at the device, %d by iomoon" % (p["device"]["read_bytes"], p["bytes"]))' >out
	case "$(cut -d'#' -f1 out)" in
	"True "*) is "$(cut -d'#' -f1 out)" "True tool " "a file in the page cache: its device read under a tenth of the bytes: tool" ;;
	*) skip "another program read $dev meanwhile ($(cut -d'#' -f2 out)): the page cache is not told from the device" ;;
	esac
else
	skip "\$TMP is on no block device"
fi
"$IOMOON" run --format json --quiet "$T/lua/41-witness/streams.lua" "$F" >streams.json
J streams.json '
p = d["phases"][0]
print("device" in p, [("device" in s) for s in p["streams"]], p["inflight"]["allowed"], [s["inflight"]["allowed"] for s in p["streams"]])' >out
case "$dev" in
"") is "$(cat out)" "False [False, False] 6 [4, 2]" "streams: allowed 4 + 2; no device on any" ;;
*) is "$(cat out)" "True [False, False] 6 [4, 2]" "streams: the phase has the device, its streams do not; allowed 4 + 2" ;;
esac
done_testing
