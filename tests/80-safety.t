#!/bin/bash
# Data safety with real devices and real faults: files iomoon did not create,
# blank / formatted / partitioned / mounted loop devices, a full tmpfs
# (ENOSPC), a loop device whose backing store is full (EIO), a file truncated
# and one deleted under a running phase. Everything is made under $TMP and
# detached or unmounted at the end.
. "$(dirname "$0")/lib.sh"
MNTS=""
cleanup_mounts() { for m in $MNTS; do umount "$m" 2>/dev/null; done; cleanup; }
trap cleanup_mounts EXIT

# a file iomoon did not create: read it, never write it without allow_write
F="$TMP/theirs.dat"
python3 -c "import os,sys; open(sys.argv[1],'wb').write(os.urandom(8<<20))" "$F"
sum=$(md5sum <"$F")
out=$("$IOMOON" quick --target "$F" --ios 64 --quiet --format json); ok $? "reading a file iomoon did not create is fine"
err=$("$IOMOON" quick --target "$F" --read 0 --time 0.2 2>&1); is $? 2 "writing to it: exit 2"
like "$err" "iomoon did not create this file; writing to it needs allow_write=true \(--allow-write\)" "says why and which flag"
err=$("$IOMOON" quick --target "$F" --size 16m --time 0.2 2>&1); is $? 2 "extending it: exit 2"
like "$err" "--size: .* is 8388608 bytes and iomoon did not create it; making it 16777216 bytes writes to it" "says so"
is "$(md5sum <"$F")" "$sum" "the file is unchanged"
is "$(stat -c %s "$F")" 8388608 "and not extended"
truncate -s 8m "$TMP/sparse.dat"
err=$("$IOMOON" quick --target "$TMP/sparse.dat" --time 0.2 2>&1); is $? 2 "filling a sparse file iomoon did not create: exit 2"
like "$err" "has holes, and filling them writes to a file iomoon did not create" "says so"
is "$(du -k "$TMP/sparse.dat" | cut -f1)" 0 "the sparse file is still empty"
"$IOMOON" quick --target "$F" --read 0 --time 0.2 --allow-write --quiet >/dev/null; ok $? "--allow-write allows it"
"$IOMOON" quick --target "$TMP/ours.dat" --size 4m --time 0.1 --quiet >/dev/null
python3 -c "
import os,re,sys; v = os.getxattr(sys.argv[1], 'user.iomoon').decode(); st = os.stat(sys.argv[1])
assert re.fullmatch(r'iomoon-2 ino=%d (btime=\d+\.\d{9}|dev=\d+:\d+)' % st.st_ino, v), v" "$TMP/ours.dat"; ok $? "a file iomoon creates carries user.iomoon, naming its inode"
"$IOMOON" quick --target "$TMP/ours.dat" --read 0 --time 0.1 --quiet >/dev/null; ok $? "and is written again later without a flag"

# block devices
if L=$(losetup -f --show "$(truncate -s 32m "$TMP/blank.img"; echo "$TMP/blank.img")" 2>/dev/null); then
	LOOPS="$L"
	err=$("$IOMOON" quick --target "$L" --read 0 --time 0.1 2>&1); is $? 2 "a blank device without --allow-write: exit 2"
	like "$err" "writing to a block device needs allow_write=true \(--allow-write\)" "names the flag"
	"$IOMOON" quick --target "$L" --read 0 --time 0.2 --allow-write --quiet >/dev/null; ok $? "a blank device with --allow-write is written"

	# a filesystem on it
	mkfs.ext4 -q -F "$L" >/dev/null 2>&1
	sum=$(md5sum <"$L")
	err=$("$IOMOON" quick --target "$L" --read 0 --time 0.1 --allow-write 2>&1); is $? 2 "an ext4 device: exit 2 even with --allow-write"
	like "$err" "(phase\.target|--target): $L: refusing to write: it holds a ext4 signature \(force=true, --force, writes anyway" "names the device, what was found, and --force"
	is "$(md5sum <"$L")" "$sum" "the filesystem is untouched"
	mkdir -p "$TMP/mnt"
	if mount "$L" "$TMP/mnt" 2>/dev/null; then
		MNTS="$TMP/mnt"
		err=$("$IOMOON" quick --target "$L" --read 0 --time 0.1 --allow-write 2>&1); is $? 2 "a mounted device: exit 2"
		like "$err" "refusing to write: $(basename "$L") is mounted on $TMP/mnt" "names the mount point"
		out=$("$IOMOON" quick --target "$L" --time 0.2 --quiet --format json); ok $? "reading a mounted device is fine"
		umount "$TMP/mnt"; MNTS=""
	else
		skip "cannot mount here"; skip "cannot mount here"; skip "cannot mount here"
	fi
	"$IOMOON" quick --target "$L" --read 0 --time 0.2 --allow-write --force --quiet >/dev/null; ok $? "--force writes over the filesystem"

	# a partition table on it (an MBR with one partition, written by hand)
	python3 - "$L" <<'PY'
import struct, sys
mbr = bytearray(512)
mbr[446:462] = struct.pack("<BBBBBBBBII", 0, 0, 2, 0, 0x83, 0, 0, 0, 2048, 32768)
mbr[510:512] = b"\x55\xaa"
with open(sys.argv[1], "r+b") as f:
    f.write(bytes(4096))      # no filesystem left
    f.seek(0)
    f.write(mbr)
PY
	err=$("$IOMOON" quick --target "$L" --read 0 --time 0.1 --allow-write 2>&1); is $? 2 "a partitioned device: exit 2"
	like "$err" "refusing to write: it holds a dos partition table" "names the partition table"
else
	for i in $(seq 1 13); do skip "no loop device here"; done
fi

# faults: a tiny tmpfs that fills up (ENOSPC)
mkdir -p "$TMP/tiny"
if mount -t tmpfs -o size=8m tmpfs "$TMP/tiny" 2>/dev/null; then
	MNTS="$TMP/tiny"
	out=$(timeout 60 "$IOMOON" run --format none --quiet "$LUA_DIR/enospc.lua" "$TMP/tiny/big.dat"); is $? 1 "a write phase on a full tmpfs ends, exit 1"
	like "$out" "^true	true	write of 1048576 bytes at offset [0-9]+: No space left on device" "ENOSPC counted and described"
	err=$(timeout 60 "$IOMOON" quick --target "$TMP/tiny/fill.dat" --size 16m --time 0.1 2>&1); is $? 2 "a fill larger than the free space: exit 2, before it starts"
	like "$err" "--size: 16 MiB needs 16 MiB free on $TMP/tiny \\([0-9.]+ [KMG]?i?B free\\)" "says what it needs and what is free"

	# a loop device on a file in the full tmpfs: writes fail with EIO
	rm -f "$TMP/tiny/big.dat" "$TMP/tiny/fill.dat"
	truncate -s 32m "$TMP/tiny/backing.img"
	head -c 7m /dev/zero >"$TMP/tiny/filler" 2>/dev/null
	if L2=$(losetup -f --show "$TMP/tiny/backing.img" 2>/dev/null); then
		LOOPS="$LOOPS $L2"
		out=$(timeout 60 "$IOMOON" run --format none --quiet "$LUA_DIR/eio.lua" "$L2"); is $? 1 "writes to a loop device on a full tmpfs: exit 1, no hang"
		like "$out" "^true	true	write of 65536 bytes at offset [0-9]+: (Input/output error|No space left on device)" "the device's write errors counted and described"
	else
		skip "no loop device"; skip "no loop device"
	fi
	umount -l "$TMP/tiny" 2>/dev/null; MNTS=""
else
	for i in 1 2 3 4 5 6; do skip "cannot mount tmpfs here"; done
fi

# a target truncated, and one deleted, under a running phase
F="$TMP/shrinking.dat"
"$IOMOON" quick --target "$F" --size 32m --time 0.1 --quiet >/dev/null
"$IOMOON" run --quiet --format json --output "$TMP/shrink.json" "$LUA_DIR/truncated.lua" "$F" &
pid=$!; sleep 0.8; truncate -s 1m "$F"; wait $pid; rc=$?
is $rc 1 "a target truncated under a running phase: exit 1, no hang"
python3 -c "
import json,sys; p=json.load(open(sys.argv[1]))['phases'][0]
assert p['errors'] > 0 and p['errors_by_errno']['short'] > 0 and p['ios'] > 0, p['errors_by_errno']
assert 2.5 < p['seconds'] < 3.5" "$TMP/shrink.json"; ok $? "its result survives: short reads counted, I/Os before them kept"
F="$TMP/deleted.dat"
"$IOMOON" quick --target "$F" --size 16m --time 0.1 --quiet >/dev/null
"$IOMOON" run --quiet --format json --output "$TMP/deleted.json" "$LUA_DIR/deleted.lua" "$F" &
pid=$!; sleep 0.5; rm -f "$F"; wait $pid; rc=$?
is $rc 0 "a target deleted under a running phase: the open file runs on"
python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['phases'][0]; assert p['ios'] > 0 and p['errors'] == 0" "$TMP/deleted.json"; ok $? "and its result is whole"

# SIGTERM as SIGINT
"$IOMOON" run --quiet --format json --output "$TMP/term.json" "$LUA_DIR/long.lua" "$TMP/term.dat" &
pid=$!; sleep 1.2; kill -TERM $pid; wait $pid; rc=$?
is $rc 1 "SIGTERM: exit 1"
python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['phases'][0]; assert p['interrupted'] and p['ios'] > 0" "$TMP/term.json"; ok $? "SIGTERM: the output file is complete, the phase marked interrupted"
# a second SIGINT ends the process at once
"$IOMOON" run --quiet --format none "$LUA_DIR/two-long.lua" "$TMP/int.dat" &
pid=$!; sleep 1; kill -INT $pid; kill -INT $pid; start=$(date +%s%N); wait $pid; rc=$?
took=$(( ($(date +%s%N) - start) / 1000000 ))
ok $([ $rc -ne 0 ] && [ $took -lt 1000 ] && echo 0 || echo 1) "two SIGINTs: the process ends at once (exit $rc after $took ms)"
done_testing
