#!/bin/bash
# Two verifying writers of one target (issue 24, item 1). Each process
# keeps its own generation map and target id, so two of them writing one
# target with crc32c made healthy storage look corrupt ('foreign',
# 'lost_write'). Now a verifying phase locks its state and the bytes of
# the target it writes or verifies (src/run/verify_lock.c): a second writer,
# or a verify while one writes, is refused up front (exit 2), disjoint
# regions with state directories of their own run together, and under
# mpirun ranks that share one target each write their own slice.
. "$(dirname "$0")/lib.sh"
PIDS=""
stop_all() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	cleanup
}
trap stop_all EXIT
cd "$TMP" || exit 1
run() { "$IOMOON" run --format none --quiet "$@"; }
# how long a writer that the others meet runs: long enough to outlast
# their start and refusal (under a second), twice that for the sanitized build
W=$(awk -v k="$SLOWER" 'BEGIN { print 1.5 * k }')
# wait_for PATH: until it exists (at most 10 s)
wait_for() {
	local i=0
	while [ ! -e "$1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}

# ---- (a) two processes, one file ----
F="$TMP/one.dat"
"$IOMOON" run --format none --quiet "$LUA_DIR/write.lua" "$F" "$W" >a.out 2>a.err & A=$!; PIDS="$A"
wait_for "$F"; sleep 0.3
err=$(run "$LUA_DIR/write.lua" "$F" 2>&1); is $? 2 "a second verifying writer of one file, started 0.3 s after the first: exit 2"
like "$err" "phase\.verify: another iomoon \(pid $A\) is writing $F with verification \(it holds the lock $IOMOON_STATE_DIR/file-[0-9]+-[0-9]+-[0-9]+\.iomoon-lock\): one process at a time writes a target with verification" \
	"the refusal names the field, the first writer's pid, the target and the rule"
err=$(run "$LUA_DIR/verify.lua" "$F" 2>&1); is $? 2 "a verify_only while a verifying writer runs: exit 2"
like "$err" "phase\.verify: another iomoon \(pid $A\) is writing $F with verification .*a verification while it writes would report its writes as errors" \
	"a verify_only is refused too (the read lock conflicts)"
wait "$A"; is $? 0 "the first writer runs to its end"
is "$(cat a.out)" "wrote	0" "the first writer saw no error"
out=$(run "$LUA_DIR/verify.lua" "$F"); is $? 0 "verify_only afterwards: exit 0"
is "$out" "1024	0" "verify_only afterwards: all 1024 blocks of 64 KiB, 0 errors"
# a writer while a verify_only runs (paced to 200 reads a second: 5 s)
"$IOMOON" run --format none --quiet "$LUA_DIR/verify.lua" "$F" 200 >c.out 2>c.err & C=$!; PIDS="$C"
sleep 1
err=$(run "$LUA_DIR/write.lua" "$F" 2>&1); is $? 2 "a verifying writer while a verify_only runs: exit 2"
like "$err" "phase\.verify: another iomoon \(pid $C\) is verifying $F .*writing it with verification now would make that verification report" \
	"says that another iomoon is verifying it"
err=$(run "$LUA_DIR/verify.lua" "$F" 2>&1); is "$? $err" "0 1024	0" "two verify_only at once share the read lock: the second runs, 0 errors"
kill "$C" 2>/dev/null; wait "$C" 2>/dev/null; PIDS=""

# ---- one process, one file named twice (a hard link, a symlink, the same path) ----
# workers get slices per target, so two targets that are one file would race
run "$LUA_DIR/make-two.lua"
ln -f two.dat two-hard.dat; ln -sf two.dat two-sym.dat
for other in two-hard.dat two-sym.dat ./two.dat; do
	sum=$(md5sum <two.dat)
	err=$(run "$LUA_DIR/twice.lua" "$other" 2>&1); rc=$?
	is "$rc $(md5sum <two.dat)" "2 $sum" "verify writing two.dat and $other in one phase: exit 2, nothing written"
	like "$err" "phase.target\[2\]: .*$other is the file or device of phase.target\[1\] too" "names both targets"
done

# ---- (b) one loop device, two processes ----
if [ "$(id -u)" = 0 ] && L=$(losetup -f --show "$(truncate -s 64m "$TMP/blank.img"; echo "$TMP/blank.img")" 2>/dev/null); then
	LOOPS="$L"
	IOMOON_STATE_DIR=$TMP/s0 run "$LUA_DIR/region.lua" "$L" 0 32m "$W" >b0.out 2>b0.err & A=$!; PIDS="$A"
	wait_for "$TMP/s0"; sleep 0.3
	err=$(IOMOON_STATE_DIR=$TMP/s1 run "$LUA_DIR/region.lua" "$L" 16777216 32m 2>&1)
	is $? 2 "a blank loop device: a second writer with a state directory of its own over an overlapping region: exit 2"
	like "$err" "phase\.verify: another process holds a write lock on bytes 0 to 33554431 of $L .*must not overlap" \
		"the refusal names the bytes locked, the device and the rule"
	ok "$([ ! -e "$TMP/s1" ]; echo $?)" "the refused one wrote nothing, not even its state directory"
	wait "$A"; is "$? $(tr '\n' ' ' <b0.out)" "0 wrote	0 verified	512	0 " "the first writes and verifies clean"
	# disjoint halves: both run together, both verify clean
	IOMOON_STATE_DIR=$TMP/s0 run "$LUA_DIR/region.lua" "$L" 0 32m "$W" >b0.out 2>b0.err & A=$!; PIDS="$A"
	sleep 0.5
	IOMOON_STATE_DIR=$TMP/s1 run "$LUA_DIR/region.lua" "$L" 33554432 32m "$W" >b1.out 2>b1.err
	is "$? $(tr '\n' ' ' <b1.out)" "0 wrote	0 verified	512	0 " "disjoint halves: the second runs beside the first and verifies clean"
	wait "$A"; is "$? $(tr '\n' ' ' <b0.out)" "0 wrote	0 verified	512	0 " "disjoint halves: the first verifies clean"
	PIDS=""
	# another node of the same device (mknod): the lock is on the device, not on its node
	N="$TMP/second-node"; mknod "$N" b $(stat -c '%t %T' "$L" | { read -r a b; echo "$((16#$a)) $((16#$b))"; })
	IOMOON_STATE_DIR=$TMP/s0 run "$LUA_DIR/region.lua" "$L" 0 32m "$W" >b0.out 2>b0.err & A=$!; PIDS="$A"
	wait_for "$TMP/s0"; sleep 0.3
	err=$(IOMOON_STATE_DIR=$TMP/s2 run "$LUA_DIR/region.lua" "$N" 16777216 32m 2>&1)
	is $? 2 "the same device through another node (mknod), a state directory of its own, overlapping: exit 2"
	like "$err" "another process holds a write lock on bytes 0 to 33554431 of $N" "names the bytes locked"
	wait "$A"; PIDS=""
	# one state directory: refused whatever the regions (one state per device)
	"$IOMOON" run --format none --quiet "$LUA_DIR/region.lua" "$L" 0 32m "$W" >b0.out 2>b0.err & A=$!; PIDS="$A"
	wait_for "$IOMOON_STATE_DIR/blockdev-$(stat -c '%t-%T' "$L" | { IFS=- read -r a b; echo "$((16#$a))-$((16#$b))"; }).iomoon-lock"
	sleep 0.3
	err=$(run "$LUA_DIR/region.lua" "$L" 33554432 32m 2>&1); is $? 2 "disjoint halves with one state directory: exit 2"
	like "$err" "another iomoon \(pid $A\) is writing $L with verification .*runs on disjoint regions of one target need a state directory each: verify_state, or IOMOON_STATE_DIR" \
		"says that disjoint runs need a state directory each"
	wait "$A"; PIDS=""
else
	skip "losetup: no loop device here (needs root)"
fi

# ---- (c) mpirun -n 2, one shared loop device, a state directory per rank ----
case "$IOMOON" in *asan*) MPI=no ;; *) MPI=yes ;; esac
if [ "$MPI" = yes ] && [ -n "$LOOPS" ] && command -v mpirun >/dev/null && "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi '; then
	export OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1
	rm -rf "$TMP/s0" "$TMP/s1"
	dd status=none if=/dev/zero of="$L" bs=1M count=64 oflag=direct
	timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 \
		sh -c 'IOMOON_STATE_DIR='"$TMP"'/s$OMPI_COMM_WORLD_RANK exec "$0" run --format none --quiet "$1" "$2"' "$IOMOON" "$LUA_DIR/mpi.lua" "$L" \
		>m.out 2>m.err
	is $? 0 "mpirun -n 2, one loop device, a state directory per rank: exit 0"
	like "$(grep ^tiny m.out)" "tiny	false	phase\.target: 2 ranks verify $L with crc32c under that one path, so each gets a slice of the region, 0 bytes, less than a block of 1048576" \
		"a rank's slice smaller than a block: refused, naming the rule"
	is "$(grep ^fill m.out)" "fill	67108864	0" "the ranks write the whole device with verification once, no error"
	is "$(grep ^check m.out)" "check	67108864	0	33554432	33554432" "verify_only: 0 errors, each rank read its own half"
	# the headers on the device: every unit of a half written by one rank (its target id), the halves by two
	python3 - "$L" >ids.out <<'PY'
import struct, sys
f = open(sys.argv[1], "rb")
ids = []
for unit in range(16384):
    h = f.read(4096)
    magic, crc, off, gen, seed = struct.unpack_from("<IIQQI", h)
    ids.append(seed if magic == 0x564d4f49 and off == unit * 4096 else None)
a, b = set(ids[:8192]), set(ids[8192:])
print(len(a), len(b), None not in a | b, a != b)
PY
	is "$(cat ids.out)" "1 1 True True" "each rank wrote its own half: one target id in each half, two ids, every unit in place"
	# one state directory for both ranks on one host: refused, naming the rule
	timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$IOMOON" run --format none \
		--quiet "$LUA_DIR/mpi.lua" "$L" >m2.out 2>m2.err
	is $? 2 "ranks on one host with one state directory: exit 2"
	like "$(cat m2.err)" "phase\.verify: another iomoon \(pid [0-9]+\) is writing $L with verification .*ranks on one host that share a target need a state directory each" \
		"says that ranks on one host need a state directory each"
	# verify_state with {rank}: a directory each without the environment
	rm -rf "$TMP"/vs-*
	timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$IOMOON" run --format none \
		--quiet "$LUA_DIR/mpi.lua" "$L" "$TMP/vs-{rank}" >m3.out 2>m3.err
	is "$? $(grep ^check m3.out) $(ls "$TMP/vs-0" "$TMP/vs-1" | grep -c 'iomoon-verify$')" \
		"0 check	67108864	0	33554432	33554432 2" \
		"verify_state = DIR-{rank}: both ranks run on the one device, each with its state in its own directory"
else
	skip "mpirun, MPI, or a loop device missing (or under ASan)"
fi
done_testing
