#!/bin/bash
# Every engine: writes a known pattern over a scratch file that an independent
# reader (python) checks; reads it back and checks it; honours qd, as seen
# from outside through a loop device's in-flight counter; reports errors.
. "$(dirname "$0")/lib.sh"

# kernel_has E: does this kernel let us use engine E (asked directly)? If
# not, why=the reason, for a skip. psync needs nothing.
kernel_has() { [ "$1" = psync ] || why=$(python3 "$T/kernel_has.py" "$1"); }

SIZE=$((8 << 20))
for e in io_uring libaio psync; do
	F="$TMP/$e.dat"
	qd=8; [ $e = psync ] && qd=1
	if ! kernel_has $e; then
		for i in 1 2 3 4 5 6 7; do skip "$e does not work on this kernel: $why"; done
		head -c $SIZE /dev/urandom >"$F" # later tests read it: no holes
		continue
	fi
	out=$("$IOMOON" run --format none --quiet "$LUA_DIR/write.lua" "$F" $SIZE $e $qd); ok $? "$e: sequential write pass of the whole file"
	is "$out" "$qd" "$e: $qd I/Os in flight at most, as asked"
	res=$(python3 "$T/check_offsets.py" "$F" 0 $SIZE); ok $? "$e: python reads back the offset pattern everywhere ($res bad)"
	out=$("$IOMOON" run --format none --quiet "$LUA_DIR/read.lua" "$F" $e $qd); ok $? "$e: random reads with verify exit 0"
	is "$out" "$(printf '4000\t0')" "$e: 4000 reads, all verified"
	# corrupt one 4k block with dd: the verifying read must catch exactly it
	printf 'CORRUPT!' | dd of="$F" bs=1 seek=$((4096 * 1000 + 16)) conv=notrunc status=none
	out=$("$IOMOON" run --format none --quiet "$LUA_DIR/corrupt.lua" "$F" $SIZE $e $qd); is $? 1 "$e: a run with a verify error exits 1"
	is "$out" "$(printf '1\t%d\t1' $((4096 * 1000)))" "$e: exactly the corrupted block is reported, as EILSEQ"
done

# null: does no I/O at all
F="$TMP/null.dat"
"$IOMOON" quick --target "$F" --size 4m --time 0.1 --quiet >/dev/null
before=$(md5sum <"$F")
out=$("$IOMOON" run --format none --quiet "$LUA_DIR/null.lua" "$F"); is "$out" "$(printf '100000\tnull')" "null: counts 100000 writes"
is "$(md5sum <"$F")" "$before" "null: the file is untouched"

# qd seen from outside: a loop device's in-flight counter while iomoon runs
if L=$(losetup -f --show "$TMP/io_uring.dat" 2>/dev/null); then
	LOOPS="$L"
	dev=$(basename "$L")
	for e in io_uring libaio; do
		if ! kernel_has $e; then
			skip "$e does not work on this kernel: $why"; skip "$e does not work on this kernel: $why"
			continue
		fi
		"$IOMOON" run --format none --quiet "$LUA_DIR/inflight.lua" "$L" $e &
		pid=$!
		max=0
		for i in $(seq 1 300); do
			read -r r w <"/sys/block/$dev/inflight"
			[ $((r + w)) -gt $max ] && max=$((r + w))
			kill -0 $pid 2>/dev/null || break
			sleep 0.005
		done
		wait $pid
		ok $? "$e on a loop device runs"
		ok $([ $max -gt 1 ] && [ $max -le 16 ] && echo 0 || echo 1) "$e: the kernel saw up to $max I/Os in flight (more than 1, at most qd 16)"
	done
else
	skip "no loop device here"; skip "no loop device here"; skip "no loop device here"; skip "no loop device here"
fi

# an engine the kernel refuses: a clear error when named, a fallback for auto
DENY="$ROOT/build/deny_syscalls"
F="$TMP/io_uring.dat"
err=$("$DENY" io_uring_setup -- "$IOMOON" quick --target "$F" --engine io_uring --time 0.1 2>&1); is $? 2 "io_uring refused by the kernel, asked for by name: exit 2"
like "$err" '^iomoon quick: --engine: io_uring does not work on this kernel: io_uring_setup: Function not implemented$' "says which engine and why"
if kernel_has libaio; then
	out=$("$DENY" io_uring_setup -- "$IOMOON" quick --target "$F" --time 0.2 --qd 4 --format json --quiet)
	like "$out" '"engine": "libaio"' "auto falls back to libaio without io_uring"
else
	skip "libaio does not work on this kernel: $why"
fi
out=$("$DENY" io_uring_setup,io_setup -- "$IOMOON" quick --target "$F" --time 0.2 --format json --quiet)
like "$out" '"engine": "psync"' "auto falls back to psync without io_uring and libaio"

# libaio's io_submit short of resources (EAGAIN, from an LD_PRELOAD shim):
# with I/Os in flight the rest waits for the next reap and the phase does
# all its I/Os; with none in flight it is retried a bounded time, then the
# phase fails saying why (it used to spin for ever, deaf to signals)
SHIM="$ROOT/build/aio_eagain.so"
case "$IOMOON" in *asan*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" ;; esac
if kernel_has libaio; then
	out=$(AIO_EAGAIN=half LD_PRELOAD="$SHIM" timeout -k 1 20 "$IOMOON" quick --engine libaio --target "$F" --size 8m --qd 8 \
		--ios 2000 --format json --quiet 2>&1)
	is "$?:$(printf '%s' "$out" | python3 -c 'import json,sys; p=json.load(sys.stdin)["phases"][0]; print(p["ios"], p["errors"])' 2>&1)" \
		"0:2000 0" "libaio: io_submit refusing every other call, taking one iocb of the rest: all 2000 I/Os, no error"
	t0=$(date +%s%N)
	out=$(AIO_EAGAIN=always LD_PRELOAD="$SHIM" timeout -k 1 20 "$IOMOON" quick --engine libaio --target "$F" --size 8m --qd 8 \
		--ios 2000 --format json --quiet 2>&1); rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	is "$rc" 1 "libaio: io_submit always short of resources: the phase fails (exit 1, not 124 from timeout), in ${ms} ms"
	like "$out" '"error": "engine libaio: Resource temporarily unavailable"' "and says why"
else
	skip "libaio does not work on this kernel"; skip "libaio does not work on this kernel"; skip "libaio does not work on this kernel"
fi

# a block device: size and sector from the kernel; writes need allow_write
if L=$(losetup -f --show "$TMP/libaio.dat" 2>/dev/null); then
	LOOPS="$LOOPS $L"
	out=$("$IOMOON" run --format none --quiet "$LUA_DIR/block.lua" "$L"); ok $? "block device script runs"
	is "$(echo "$out" | sed -n 1p)" "$(printf 'block	%d	512' $SIZE)" "block device: kind, size and sector from the kernel"
	# the script's name and line (Lua shortens a long path to its end, after "...")
	like "$(echo "$out" | sed -n 2p)" "^false	[^	]*/block\.lua:7: phase\.target: $L: writing to a block device needs allow_write=true \(--allow-write\)" "block device: writes refused without allow_write, at the script's line"
	is "$(echo "$out" | sed -n 3p)" "$(printf '100	0')" "block device: writes with allow_write"
	err=$("$IOMOON" quick --target "$L" --read 0 --time 0.1 2>&1); is $? 2 "quick: writing a block device without --allow-write: exit 2"
	like "$err" 'needs allow_write=true \(--allow-write\)' "quick names the flag that allows it"
	err=$("$IOMOON" quick --target "$L" --size 1g --time 0.1 2>&1); is $? 2 "a size past the device: exit 2"
	like "$err" "^iomoon quick: --size: 1073741824 bytes is larger than the device $L \(8 MiB\)" "a size past the device is named"
else
	for i in 1 2 3 4 5 6 7 8; do skip "no loop device here"; done
fi

# errors: the file shrinks under the target; reads past its end come back short
F="$TMP/shrink.dat"
out=$("$IOMOON" run --format none --quiet "$LUA_DIR/shrink.lua" "$F" 2>"$TMP/e.err"); is $? 1 "short reads: exit 1"
read -r n nread nwrite nfirst same <"$TMP/e.err"
ok $([ "$n" -gt 100 ] && [ "$nread" = "$n" ] && [ "$nwrite" = 0 ] && [ "$nfirst" = 4 ] && [ "$same" = true ] && echo 0 || echo 1) \
	"on_error=continue: $n errors, all reads, per op type by errno; the first 4 kept with their offsets ($(cat "$TMP/e.err"))"
like "$out" '^true	true	read of 4096 bytes at offset [0-9]+: short, 0 bytes done' "short reads: counted and the first one described"
out=$("$IOMOON" run --quiet "$LUA_DIR/shrink.lua" "$F" 2>/dev/null); is $? 1 "short reads, table format: exit 1"
like "$out" '[0-9]+ errors \(read of 4096 bytes at offset [0-9]+: short' "the table row says what went wrong"
done_testing
