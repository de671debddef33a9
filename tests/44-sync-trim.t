#!/bin/bash
# Syncs and trims reach the kernel, for every engine: a sync follows every
# N writes of a slot (counted, and for psync the system calls strace sees);
# a trimmed range of a file reads back zeros and gives its blocks back; a
# loop device's BLKDISCARD punches its backing file; sync = "dsync" opens
# with O_DSYNC. Bad input is refused before anything is created.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

run_lua() { # run_lua NAME ARGS...: tests/lua/44-sync-trim/NAME.lua, run with ARGS
	local name=$1
	shift
	"$IOMOON" run --format none "$LUA_DIR/$name.lua" "$@"
}

# ---- syncs: one per N writes of a slot, exactly (qd 1, an ios quota) ----
for e in io_uring libaio psync null sim; do
	direct=true
	[ "$e" = psync ] && direct=false
	out=$(run_lua sync-every "$e" "$TMP/s-$e.dat" $direct 2>&1)
	is "$out" "$(printf '120\t30\tfdatasync\t4\t0\t120\ttrue')" "$e: 120 writes, fdatasync = 4: 30 syncs, counted apart from the quota"
done
out=$(run_lua sync-slots "$TMP/f.dat")
is "$out" "$(printf 'fsync\ttrue\t200')" "qd 4, fsync = 5: a slot syncs after its own 5th write (36 to 40 syncs for 200 writes)"

# streams that sync differently: each stream says its own, the phase "mixed"
out=$(run_lua sync-streams "$TMP/mx.dat")
is "$out" "$(printf 'mixed\t0\t112\tmixed\tfdatasync\t100\tdsync\tfsync\t12\tnone')" \
	"streams: fdatasync = 1 (100 syncs, O_DSYNC) and fsync = 8 (12 syncs); the phase says mixed and sums them"

# commit latency: each write followed by its own sync (fdatasync = 1) is one
# commit, timed from the write's start to its sync's completion; counts and
# bounds only (sim: a write and a sync each take at least 1 ms, so a commit 2)
for a in "sim 1 1ms" "io_uring 1" "libaio 1"; do
	set -- $a
	out=$(run_lua commit "$1" "$TMP/cm-$1.dat" "$2" ${3:-})
	is "$out" "$(printf '60\ttrue\ttrue\ttrue\ttrue')" "$1: fdatasync = 1: 60 commits, one per write and sync, at least the write plus the sync"
done
is "$(run_lua commit sim "$TMP/cm4.dat" 4 1ms)" "$(printf 'nil\t14')" "fdatasync = 4: no commit figure (a sync is not each write's)"
# the table: the commit under its stream, each sync row once (not again under the phase's total)
out=$("$IOMOON" run "$LUA_DIR/sync-streams.lua" "$TMP/mx3.dat")
is "$(grep -c 'after every' <<<"$out") $(grep -c 'fsync and fdatasync' <<<"$out") $(grep -c '^  commit: write + fdatasync .* 100 commits$' <<<"$out")" "2 0 1" \
	"table: a sync row per stream, none repeated under the total; the commit row under its stream"

# a phase's fsync is each stream's default: a stream gives its own (fdatasync
# replaces it), and one that never writes has none
out=$(run_lua sync-inherited)
is "$out" "$(printf 'fsync\t20\tfdatasync\t10\tnil')" "streams: the phase's fsync = 2 inherited, replaced by fdatasync = 4, dropped where nothing is written"

# psync: the system calls themselves, as the kernel saw them (LeakSanitizer
# cannot run under ptrace: off for these two runs of the sanitized build)
asan_was=${ASAN_OPTIONS-}
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
strace -f -c -e trace=fdatasync,fsync -o "$TMP/strace.txt" "$IOMOON" run --format none "$LUA_DIR/psync-fdatasync.lua" "$TMP/st.dat"
is "$(awk '$NF == "fdatasync" { print $4 }' "$TMP/strace.txt")" 30 "psync: strace counts 30 fdatasync calls for 90 writes"
strace -f -e trace=openat -o "$TMP/open.txt" "$IOMOON" run --format none "$LUA_DIR/psync-dsync.lua" "$TMP/ds.dat"
like "$(grep 'ds.dat' "$TMP/open.txt" | grep O_RDWR)" 'O_DSYNC' 'sync = "dsync": the target is opened O_RDWR|O_DSYNC'
export ASAN_OPTIONS="$asan_was"

# ---- trims in the figures: a trim-only phase measured, intervals that count them ----
out=$(run_lua trim-figures)
is "$out" "$(printf 'false\t1000\t1000\t0\t4096000\ntrue\ttrue\ntrue')" \
	"a trim-only phase is measured (its bytes are trim.bytes, not throughput); intervals count trims; a phase's intervals are its streams' summed, one by one"

# ---- reports: sync and trim columns in CSV, only where a row has them ----
"$IOMOON" run --format csv "$LUA_DIR/csv.lua" "$TMP/c.dat" >"$TMP/ops.csv"; ok $? "a CSV report of a phase with syncs: exit 0"
out=$(python3 - "$TMP/ops.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
wal, plain = (dict(zip(h, r)) for r in rows[1:])
print(h.index("Sync IOps") > h.index("Rate Met"), float(wal["Sync IOps"]) > 0, float(wal["p99 Sync Response Time (ms)"]) > 0,
      plain["Sync IOps"] == "", wal["Trim IOps"] == "")
PY
)
is "$out" "True True True True True" "CSV: sync columns after IOMeter's and iomoon's, filled on the syncing row, empty elsewhere"
"$IOMOON" run --format csv "$LUA_DIR/plain.lua" "$TMP/c.dat" | head -1 | grep -q "Sync IOps"
ok "$([ $? -ne 0 ]; echo $?)" "CSV without syncs or trims: no such columns (as before they existed)"

# ---- trims of a file: zeros read back, blocks given back ----
for e in io_uring libaio psync; do
	qd=8
	[ "$e" = psync ] && qd=1
	head -c 8M /dev/urandom >"$TMP/t-$e.dat"
	before=$(stat -c %b "$TMP/t-$e.dat")
	out=$(run_lua trim-file "$e" "$TMP/t-$e.dat" $qd)
	how=engine
	[ "$e" = libaio ] && how=syscall
	is "$out" "$(printf '128\t0\t%s\t0' $how)" "$e: 128 trims of 64 KiB, by the $how"
	cmp -s "$TMP/t-$e.dat" <(head -c 8M /dev/zero)
	ok $? "$e: the trimmed file reads back zeros"
	after=$(stat -c %b "$TMP/t-$e.dat")
	ok "$([ "$after" -lt $((before / 8)) ]; echo $?)" "$e: its blocks were given back ($before -> $after blocks)"
done
# trims the worker makes by system call (libaio issues none) complete at once: a timed phase of them still ends
T0=$(secs)
timeout -s KILL 60 "$IOMOON" fio --name=tt --filename="$TMP/tt.dat" --size=16m --rw=randtrim --bs=4k --ioengine=libaio \
	--iodepth=128 --runtime=500ms --time_based --quiet --format json --output "$TMP/tt.json"
is "$?:$(under "$(since "$T0")" 10)" "0:0" "a 500 ms phase of libaio's trims by system call, qd 128: ends on time (it trimmed on past its end)"
is "$(python3 -c 'import json; p=json.load(open("'"$TMP"'/tt.json"))["phases"][0]; print(p["ios"] > 0, round(p["seconds"], 1))')" \
	"True 0.5" "... its trims counted over its 500 ms"

# a mix: 50 % trims land where the trims were asked, writes stay
head -c 4M /dev/urandom >"$TMP/mix.dat"
out=$(run_lua trim-mix "$TMP/mix.dat")
is "$out" "$(printf 'true\ttrue\t2000')" "read 20 / trim 30 / write 50: the shares land near 30 % trims, the ios quota exact"

# ---- a loop device: BLKDISCARD punches its backing file ----
head -c 16M /dev/urandom >"$TMP/back.img"
if L=$(losetup -f --show "$TMP/back.img" 2>/dev/null); then
	LOOPS="$LOOPS $L"
	before=$(stat -c %b "$TMP/back.img")
	off=0
	for e in io_uring libaio; do
		out=$(run_lua discard "$e" "$L" $off 2>&1)
		is "$out" "$(printf '8\tsyscall\t0')" "$e on $L: 8 discards of 1 MiB, by BLKDISCARD in the worker"
		off=8
	done
	sync
	after=$(stat -c %b "$TMP/back.img")
	ok "$([ "$after" -lt $((before * 3 / 4)) ]; echo $?)" "the loop device's backing file lost the discarded blocks ($before -> $after)"
	cmp -s "$TMP/back.img" <(head -c 16M /dev/zero)
	ok $? "the discarded ranges of the backing file read back zeros"
	# trim_secure: the kernel is asked whether the device does secure
	# discard (a probe that cannot erase: its range starts at byte 1); a
	# loop device does not, so the phase is refused and nothing written
	head -c 1M /dev/urandom | dd of="$L" bs=1M seek=2 conv=notrunc,fsync status=none
	sum=$(md5sum <"$L")
	# (LeakSanitizer cannot run under ptrace: no leak check in the strace'd run)
	err=$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=ioctl -o "$TMP/secure.strace" "$IOMOON" run "$T/lua/44-sync-trim/trim-secure.lua" "$L" 2>&1)
	is $? 2 "trim_secure on a loop device: exit 2"
	like "$err" "phase.trim_secure: $L does not do secure discard \(BLKSECDISCARD: not supported by the device\)" "says the device does not do secure discard"
	is "$(grep -c 'BLKSECDISCARD' "$TMP/secure.strace") $(grep -cE 'BLKSECDISCARD, \[1, 0\]\) += -1 EOPNOTSUPP' "$TMP/secure.strace") $(grep -c 'BLKDISCARD' "$TMP/secure.strace")" "1 1 0" \
		"the kernel saw one BLKSECDISCARD, the probe [1, 0] it refused, and no discard"
	is "$(md5sum <"$L")" "$sum" "the device is untouched"
	err=$("$IOMOON" run "$T/lua/44-sync-trim/trim-secure.lua" "$L" 0 2>&1)
	is $? 2 "trim_secure without trims: exit 2"
	like "$err" "phase.trim_secure: true, but the mix has no trims \(give trim = N" "says the mix has no trims"
	losetup -d "$L"; LOOPS="${LOOPS% $L}"
else
	for i in 1 2 3 4 5 6; do skip "no loop device here"; done
	skip "no loop device here"
	skip "no loop device here"
	skip "no loop device here"
	skip "no loop device here"
fi

# ---- bad input: exit 2, one line naming the field, nothing created ----
refused() { # refused PHASE-FIELDS REGEX DESCRIPTION
	rm -f "$TMP/new.dat"
	printf 'require("iomoon").run { target = { path = "%s", size = "1m" }, duration = 0.2, %s }\n' "$TMP/new.dat" "$1" \
		>"$TMP/bad.lua"
	"$IOMOON" run --format none "$TMP/bad.lua" >/dev/null 2>"$TMP/bad.err"
	is $? 2 "$3: exit 2"
	is "$(wc -l <"$TMP/bad.err")" 1 "$3: one line"
	like "$(cat "$TMP/bad.err")" "$2" "$3: names the field"
	ok "$([ ! -e "$TMP/new.dat" ]; echo $?)" "$3: nothing created"
}
refused 'bs = "4k", read = 100, fsync = 2' 'phase\.fsync: the mix never writes' "fsync on a read-only mix"
refused 'bs = "4k", read = 0, fsync = 2, fdatasync = 2' 'phase\.fdatasync: given with fsync' "fsync and fdatasync"
refused 'bs = "4k", read = 70, trim = 40' 'phase\.trim: 40 % with 70 % reads is over 100 %' "read + trim over 100"
refused 'bs = "4k", read = 0, trim = 10, verify = "crc32c"' 'phase\.verify: with trims' "trims with verification"
refused 'bs = "4k", read = 100, sync = "dsync"' 'phase\.sync: the mix never writes' "O_DSYNC on a read-only mix"
refused 'bs = "4k", sync = "osync"' "phase\\.sync: 'osync' is not a way to open for writing" "an unknown sync"
refused 'bs = "4k", fsync = 0' 'phase\.fsync: 0 is out of range' "fsync = 0"
refused 'bs = "4k", read = 0, trim = 10, trim_secure = true' 'phase\.trim_secure: .*new\.dat is not a local block device' "trim_secure on a file"
refused 'streams = { { bs = "4k", read = 0 }, { bs = "4k", read = 100, fdatasync = 1 } }' \
	'phase\.streams\[2\]\.fdatasync: the mix never writes' "a stream's fdatasync on a read-only mix"

# a file system that does not punch holes: ramfs (no fallocate at all)
mkdir -p "$TMP/ram"
if mount -t ramfs none "$TMP/ram" 2>/dev/null; then
	MOUNTS="$MOUNTS $TMP/ram"
	head -c 1M /dev/urandom >"$TMP/ram/f.dat"
	touch -d 2020-01-01 "$TMP/ram/f.dat"
	sum=$(md5sum <"$TMP/ram/f.dat")
	err=$(run_lua trim-ramfs "$TMP/ram/f.dat" 2>&1)
	is $? 2 "trims on ramfs (no hole punching): exit 2"
	like "$err" 'phase\.mix: trims .*f\.dat, which cannot discard: .*not one known to punch holes' "names why"
	is "$(md5sum <"$TMP/ram/f.dat") $(stat -c %Y "$TMP/ram/f.dat")" "$sum $(date -d 2020-01-01 +%s)" \
		"the file is unchanged, not even its time"
	umount_wait "$TMP/ram"
else
	skip "no ramfs mount here"
	skip "no ramfs mount here"
	skip "no ramfs mount here"
fi
# checking a trim phase on an ext4 file touches nothing (no fallocate probe)
head -c 64k /dev/urandom >"$TMP/pp.dat"
touch -d 2020-01-01 "$TMP/pp.dat"
is "$(run_lua trim-check "$TMP/pp.dat") $(stat -c '%X %Y' "$TMP/pp.dat")" "true $(date -d 2020-01-01 +%s) $(date -d 2020-01-01 +%s)" \
	"iomoon.check of a trim phase changes not even the file's times (access and modification)"

done_testing
