#!/bin/bash
# crc32c verification: a file written with headers, then damaged by dd at
# known offsets (bytes corrupted, a block copied over its neighbour, a block
# put back to an older copy of itself), is read back: exactly those blocks
# are reported, each as what it is.
. "$(dirname "$0")/lib.sh"
F="$TMP/v.dat"
out=$("$IOMOON" run --format none --quiet "$LUA_DIR/damage.lua" "$F" "$TMP/old"); is $? 1 "a verify pass that finds damage: exit 1"
is "$(echo "$out" | sed -n 1p)" "$(printf 'clean\t4096\t0')" "an undamaged file verifies clean, all 4096 blocks"
is "$(echo "$out" | sed -n 2p)" "$(printf 'damaged\t4\t2\t1\t1')" "four damaged blocks: two corrupt, one misdirected, one lost write"
is "$(echo "$out" | sed -n '3,6p' | tr '\t\n' '  ')" "lost_write 100 corrupt 200 corrupt 333 misdirected 400 " "exactly those blocks, each named for what it is"
# the message says what was expected and found
out=$("$IOMOON" run --format none --quiet "$LUA_DIR/misdirected.lua" "$F")
like "$out" "misdirected: the unit at 1638400 holds the data written for offset 1642496" "a misdirected block names the offset its data was written for"
# units of 512 bytes when the sizes are not whole 4 KiB
out=$("$IOMOON" run --format none --quiet "$LUA_DIR/units-512.lua" "$TMP/s.dat"); is "$out" "$(printf '1\t3584')" "1536-byte blocks: 512-byte units, the damaged one found"
err=$("$IOMOON" run --format none --quiet /dev/stdin "$TMP/x.dat" 2>&1 <<'LUA'
require("iomoon").run { target = { path = arg[1], size = "1m" }, bs = 1000, direct = false, verify = "crc32c" }
LUA
); is $? 2 "crc32c with blocks not in whole 512-byte units: exit 2"
like "$err" "phase.verify: crc32c verifies whole 512-byte units; block size 1000 is not one" "says why"
err=$("$IOMOON" run --format none --quiet /dev/stdin "$TMP/x.dat" 2>&1 <<'LUA'
require("iomoon").run { target = { path = arg[1], size = "1m" }, bs = "4k", verify_only = true }
LUA
); is $? 2 "verify_only without a verification: exit 2"
# Across processes (issue 8): a verifying write phase saves its generation
# map in IOMOON_STATE_DIR, named for the file's device and inode; a
# verify_only in a new process finds zeroed units (missing) and an older
# copy put back (lost_write).
export IOMOON_STATE_DIR="$TMP/state"
st() { echo "$IOMOON_STATE_DIR/file-$(stat -L -c '%Hd-%Ld-%i' "$1").iomoon-verify"; }
X="$TMP/x.dat"
xv() { "$IOMOON" run --format none --quiet "$LUA_DIR/verify.lua" "$X" >"$TMP/xv.out"; echo $?; }
"$IOMOON" run --format none --quiet "$LUA_DIR/write.lua" "$X"; ok $? "a 16 MiB file written with verify=crc32c"
ok "$([ -s "$(st "$X")" ] && [ ! -e "$X.iomoon-verify" ]; echo $?)" "the write phase leaves its state in IOMOON_STATE_DIR, named for the file's identity (none beside it)"
is "$(stat -c %a "$(st "$X")") $(ls -A "$IOMOON_STATE_DIR" | grep -c tmp)" "644 0" "the state is written through the one atomic writer: mode 644, no temporary file left"
is "$(xv) $(head -1 "$TMP/xv.out")" "$(printf '0 4096\t0\t0\t0\t0\t0')" "a new process verifies it clean: 4096 units, exit 0"
dd status=none conv=notrunc if=/dev/zero of="$X" bs=4096 seek=7 count=1
is "$(xv) $(head -1 "$TMP/xv.out")" "$(printf '1 4096\t1\t1\t0\t0\t0')" "one zeroed 4 KiB block: exactly 1 missing, exit 1"
is "$(sed -n 2p "$TMP/xv.out")" "read of 4096 bytes at offset 28672: missing: no header at offset 28672 (expected magic 0x564d4f49, found 0x00000000)" \
	"a missing header says what was expected and what was found"
cp "$X" "$TMP/x.old"
"$IOMOON" run --format none --quiet "$LUA_DIR/write.lua" "$X"; ok $? "a second write pass"
cp "$TMP/x.old" "$X"   # cp writes into the same inode: an older copy put back
is "$(xv) $(head -1 "$TMP/xv.out")" "$(printf '1 4096\t4096\t1\t0\t4095\t0')" "an older copy put back, seen by a new process: 4095 lost writes (and the zeroed one missing)"
dd status=none conv=notrunc if=/dev/zero of="$X" bs=1M count=16
is "$(xv) $(head -1 "$TMP/xv.out")" "$(printf '1 4096\t4096\t4096\t0\t0\t0')" "a zeroed file fails in a new process: 4096 missing, exit 1"
XS=$(st "$X"); mv "$XS" "$TMP/x.state"
is "$(xv) $(head -1 "$TMP/xv.out")" "$(printf '1 4096\t4096\t4096\t0\t0\t0')" "with no state either: every unit must hold a header, 4096 missing"
# a unit never written with verification is skipped when the state says so
"$IOMOON" run --format none --quiet "$LUA_DIR/write-half.lua" "$TMP/p.dat"
is "$("$IOMOON" run --format none --quiet "$LUA_DIR/verify-half.lua" "$TMP/p.dat")" "$(printf '256\t0')" "half a file written: the unwritten half is skipped, not missing"

# one map per file, whatever path names it (issue 8.7)
mv "$TMP/x.state" "$XS"
is "$(cd "$TMP" && "$IOMOON" run --format none --quiet "$LUA_DIR/one-map.lua" "$TMP")" "$(printf '1\t1\t12288')" \
	"written as k.dat, rewritten as ./k.dat, verified by its absolute path: the lost write is caught"

# reading back with a block smaller than the units written (issue 8.8)
err=$("$IOMOON" run --format none --quiet /dev/stdin "$TMP/k.dat" 2>&1 <<'LUA'
require("iomoon").run { target = arg[1], bs = 512, verify = "crc32c", verify_only = true }
LUA
); is $? 2 "verify_only with bs=512 over 4 KiB units: exit 2, not false corruption"
like "$err" "(phase\.bs|--bs): 512, but the data to verify was written in 4096-byte units" "says the block size and the unit"
is "$("$IOMOON" run --format none --quiet "$LUA_DIR/smaller-block.lua" "$TMP/b2.dat" | tr '\t\n' '  ')" "false true 128 0 " \
	"in the same process too; a larger multiple of the unit verifies clean"
rm "$(st "$TMP/b2.dat")"
err=$("$IOMOON" run --format none --quiet /dev/stdin "$TMP/b2.dat" 2>&1 <<'LUA'
require("iomoon").run { target = arg[1], bs = 512, verify = "crc32c", verify_only = true }
LUA
); is $? 2 "with no state, the first header's unit size is what refuses bs=512"
like "$err" "(phase\.bs|--bs): 512, but the data to verify was written in 4096-byte units \(target .*b2.dat: the header at the region's start says so\)" "and says so"

# overlapping I/Os of one worker (issue 8.8): a read racing a write of the
# same unit is held until the write completes, so healthy storage is clean
is "$("$IOMOON" run --format none --quiet "$LUA_DIR/overlap.lua" "$TMP/o.dat" | tr '\t\n' '  ')" "true 0 true false 0 true " \
	"qd=32 over 32 KiB, 50 % reads, direct and buffered: no false errors"

# a verification pass reads each unit once and reports each bad unit once (issue 9.3)
out=$("$IOMOON" run --format none --quiet "$LUA_DIR/once.lua" "$TMP/c.dat")
is "$(echo "$out" | sed -n 1p)" "$(printf '256\t2\t2')" "two corrupt units, on_error=continue: errors 2, ios 256 (each unit read once)"
is "$(echo "$out" | sed -n 2p)" "$(printf '16\t2\t2')" "in 64 KiB reads too: each bad unit counted once"
like "$(echo "$out" | sed -n 3p)" "^read of 65536 bytes at offset 0: corrupt: the unit at 0 fails its check \(crc32c stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\)$" \
	"a crc mismatch says crc32c stored and computed"
# several workers share one pass: each reads its slice of the region
is "$("$IOMOON" run --format none --quiet "$LUA_DIR/workers.lua" "$TMP/mw.dat" "$TMP/c.dat" | tr '\t\n' '  ')" "1024 0 512 2 " \
	"verify_only with 4 workers reads each unit once (1024), also over two targets (256 + 256, the 2 bad units of c.dat once)"
# a block device's state lives in $IOMOON_STATE_DIR, keyed by its device number
truncate -s 16m "$TMP/lb.img"
if L=$(losetup -f --show "$TMP/lb.img" 2>/dev/null); then
	LOOPS="$LOOPS $L"
	"$IOMOON" run --format none --quiet "$LUA_DIR/device-write.lua" "$L"
	st="$IOMOON_STATE_DIR/blockdev-$((0x$(stat -c %t "$L")))-$((0x$(stat -c %T "$L"))).iomoon-verify"
	ok "$([ -s "$st" ]; echo $?)" "a block device's state: $(basename "$st") in IOMOON_STATE_DIR"
	is "$("$IOMOON" run --format none --quiet "$LUA_DIR/device-verify.lua" "$L")" "$(printf '4096\t0\t0')" "verified clean by a new process"
	dd status=none oflag=direct if=/dev/zero of="$L" bs=4096 seek=9 count=1
	is "$("$IOMOON" run --format none --quiet "$LUA_DIR/device-verify.lua" "$L")" "$(printf '4096\t1\t1')" "one zeroed block on the device: 1 missing"
else
	skip "no loop device here"; skip "no loop device here"; skip "no loop device here"
fi
# a file that is not a state, where the state of a target would go, is
# an error before anything is written, and is left as it is
truncate -s 1m "$TMP/f.dat"
mkdir -p "$IOMOON_STATE_DIR"; echo "not mine to replace" >"$(st "$TMP/f.dat")"
out=$("$IOMOON" run --format none --quiet "$LUA_DIR/foreign-state.lua" "$TMP/f.dat" 2>&1); is $? 1 "a verifying write phase whose state is not a state file: exit 1"
like "$out" "verification state .*file-[0-9]+-[0-9]+-[0-9]+.iomoon-verify: damaged or not a state file" "the error names the state file"
is "$(cat "$(st "$TMP/f.dat")"); $(ls "$IOMOON_STATE_DIR" | grep -c tmp); $(cmp -s "$TMP/f.dat" <(head -c 1M /dev/zero); echo $?)" \
	"not mine to replace; 0; 0" "the file in its place is unchanged, no temporary left, the target not written"
# crc32c against known values, the CPU's instruction against the table, and
# verify_check's kinds (tests/unit/test_verify.c)
unit_test test_verify "unit tests of crc32c and verify_check"
# the burn-in suite catches a corrupted block
"$IOMOON" suite burn-in --target "$TMP/b.dat" --size 16m --time 0.3 --quiet >/dev/null; ok $? "the burn-in suite passes on a healthy file"
# a block size that does not divide the target leaves its tail unread:
# refused (exit 2) when data was written there, with --after-crash too
# (before: exit 0 with the last unit zeroed); a tail never written is fine
cat >"$TMP/tail.lua" <<'LUA'
require("iomoon").run { target = { path = arg[1], size = "4m" }, bs = "4k", read = 0, random = 0, qd = 4,
                        bytes = arg[2], verify = "crc32c", sync = "dsync" }
LUA
"$IOMOON" run --format none --quiet "$TMP/tail.lua" "$TMP/t.dat" 4m
dd if=/dev/zero of="$TMP/t.dat" bs=4096 seek=1023 count=1 conv=notrunc status=none
for a in "" --after-crash; do
	err=$("$IOMOON" verify "$TMP/t.dat" $a --bs 12k --quiet --format none 2>&1)
	is "$?" 2 "verify $a --bs 12k over 4 MiB whose last unit was written (and zeroed): exit 2"
	like "$err" "--bs: 12288 leaves the last 4096 bytes of .*t.dat unread, written at 4190208" "  it says why"
	"$IOMOON" verify "$TMP/t.dat" $a --quiet --format none 2>/dev/null; is "$?" 1 "verify $a --bs 4k: the zeroed unit fails it"
done
rm -f "$TMP/t.dat"; "$IOMOON" run --format none --quiet "$TMP/tail.lua" "$TMP/t.dat" 1m
"$IOMOON" verify "$TMP/t.dat" --after-crash --bs 12k --quiet --format none; is "$?" 0 "verify --after-crash --bs 12k where the tail was never written: exit 0"
done_testing
