#!/bin/bash
# crc32c verification under attack: states found by identity (links), the
# user's files beside a target left alone, iomoon's own plain writes, a
# buffered verify that must read the disk, a truncated file, several
# workers writing one target, maps of re-created files, a missing state
# directory, another target's data.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
run() { "$IOMOON" run --format none --quiet "$@"; }
w() { run "$LUA_DIR/write.lua" "$1" >/dev/null || echo "write $1 failed"; }
v() { run "$LUA_DIR/verify.lua" "$1"; echo "exit $?"; }

# V1: an older copy put back is a lost write whatever path names the file
w w.dat; cp w.dat old.dat; w w.dat; cp old.dat w.dat
ln -s w.dat link.dat; ln w.dat hard.dat
is "$(v link.dat | tr '\t\n' '  ')" "1024 1024 0 1024 0 exit 1 " "an older copy, verified through a symlink: 1024 lost writes, exit 1"
is "$(v hard.dat | tr '\t\n' '  ')" "1024 1024 0 1024 0 exit 1 " "through a hard link: the same"
rm -f w.dat link.dat hard.dat old.dat
w w.dat; w w.dat; ln -s w.dat link.dat; w link.dat
is "$(v w.dat | tr '\t\n' '  ')" "1024 0 0 0 0 exit 0 " "two writes by name, one through a symlink: generations go on, verified clean"
ok "$([ ! -e w.dat.iomoon-verify ] && [ ! -e link.dat.iomoon-verify ]; echo $?)" "no state beside the file"
rm -f w.dat link.dat

# D5: files beside a new target, named like the old states, are the user's
echo "user data" >n.dat.iomoon-verify; echo "user tmp" >n.dat.iomoon-verify.tmp
w n.dat
is "$(cat n.dat.iomoon-verify n.dat.iomoon-verify.tmp | tr '\n' ' ')" "user data user tmp " \
	"a verified write to a new n.dat leaves n.dat.iomoon-verify and its .tmp as they were"
is "$(ls "$IOMOON_STATE_DIR" | grep -c '\.tmp')" "0" "and leaves no temporary in the state directory"

# V4: iomoon's own plain writes make the state stale: verify_only refuses
w p.dat
"$IOMOON" quick --target p.dat --read 0 --ios 10 --quiet >/dev/null
err=$(run "$LUA_DIR/verify.lua" p.dat 2>&1); is $? 2 "verify_only after a non-verifying write: exit 2, not corruption"
like "$err" "p\.dat was written since the last verified write this state knows of \(without verification, .*\): rewrite it with verify, or delete the state .*file-" \
	"says why and what to do"
w p.dat
is "$(v p.dat | tr '\t\n' '  ')" "1024 0 0 0 0 exit 0 " "rewritten with verify: clean again"
is "$(run "$LUA_DIR/plain-write.lua" | tr '\t\n' '  ')" "false true " "in one process too: verify write, plain write, verify_only refuses"

# V2: a verified file truncated to half
w h.dat; truncate -s 2M h.dat
err=$(run "$LUA_DIR/verify.lua" h.dat 2>&1); is $? 2 "a verified file truncated to half: exit 2"
like "$err" "h\.dat is smaller than what was written with verification \(2097152 bytes now\)" "says the target shrank"

# V3: another target's data, copied over, is foreign
w a.dat; w b.dat; w b.dat; cp b.dat a.dat
is "$(v a.dat | tr '\t\n' '  ')" "1024 1024 0 0 1024 exit 1 " "b.dat's data copied over a.dat: 1024 foreign units, exit 1"

# V5: several workers writing one target with verification: a slice each
is "$(run "$LUA_DIR/workers.lua" | tr '\t\n' '  ')" "true 0 false true " \
	"4 workers, random writes: every unit written by the worker whose quarter it is; slices smaller than a block refused"
"$IOMOON" suite burn-in --target bi.dat --size 8m --time 0.5s --workers 4 --qd 16 --quiet >/dev/null
ok $? "the burn-in suite with 4 workers passes on healthy storage"

# H2: maps of files re-created and deleted do not pile up
case "$IOMOON" in
*asan*) skip "RSS under ASan's quarantine says nothing about leaks (LeakSanitizer checks those)" ;;
*) like "$(run "$LUA_DIR/maps.lua" | tr '\t\n' '  ')" "^true " "24 rounds of a 256 MiB file re-created: RSS grows less than 2 MiB after round 4" ;;
esac

# H4: a state directory that does not exist is made; one that cannot be is bad input
IOMOON_STATE_DIR="$TMP/a/b/c" w d.dat
ok "$(ls "$TMP"/a/b/c/file-*.iomoon-verify >/dev/null 2>&1; echo $?)" "IOMOON_STATE_DIR=\$TMP/a/b/c is created, the state in it"
echo x >plain
err=$(IOMOON_STATE_DIR="$TMP/plain/st" run "$LUA_DIR/write.lua" e.dat 2>&1); is $? 2 "a state directory under a regular file: exit 2"
like "$err" "IOMOON_STATE_DIR: .*plain/st cannot hold the verification state" "names IOMOON_STATE_DIR"
ok "$([ ! -e e.dat ]; echo $?)" "and nothing was created"

# V6: a buffered verify reads the disk, not the page cache
if command -v mkfs.ext4 >/dev/null && truncate -s 64m fs.img && mkfs.ext4 -q -F fs.img 2>/dev/null &&
	L=$(losetup -f --show fs.img 2>/dev/null); then
	LOOPS="$LOOPS $L"
	mkdir mnt
	if mount "$L" mnt 2>/dev/null; then
		MOUNTS="$MOUNTS $TMP/mnt"
		run "$LUA_DIR/buffered-write.lua"
		blk=$(filefrag -v mnt/f.dat | awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 }')
		bs=$(stat -f -c %S mnt)
		dd status=none conv=notrunc,fsync if=/dev/urandom of="$TMP/fs.img" bs="$bs" seek="$blk" count=1
		is "$(run "$LUA_DIR/buffered-verify.lua" | tr '\t\n' '  ')" "256 1 " "a block corrupted behind the page cache: a buffered verify finds it"
	else
		skip "cannot mount here"
	fi
else
	skip "no mkfs.ext4 or loop device here"
fi
# F4: after a crash, a unit whose sectors carry a generation never issued
# or bytes no write put there is corrupt, not torn (before: torn, exit 0)
crash_json() { python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["phases"][0]["crash"]; print(*[c[k] for k in sys.argv[2:]])' "$@"; }
run "$LUA_DIR/durable-write.lua" c.dat; cp c.dat c.old; run "$LUA_DIR/durable-write.lua" c.dat
"$IOMOON" verify c.dat --after-crash --quiet --format none; is $? 0 "after a clean write: verify --after-crash exit 0"
python3 "$LUA_DIR/tear.py" c.dat 10 futuregen && python3 "$LUA_DIR/tear.py" c.dat 30 hugegen &&
	python3 "$LUA_DIR/tear.py" c.dat 50 forged
"$IOMOON" verify c.dat --after-crash --quiet --format json --output t.json; rc=$?
is "$rc $(crash_json t.json corrupt torn lost_durable)" "1 3 0 0" \
	"sectors tagged g+1 or 2^63 over scribbled bytes, or g+2^33 with a matching crc: 3 corrupt, 0 torn, exit 1"
is "$(python3 -c 'import json,sys; print(*sorted(json.load(open(sys.argv[1]))["phases"][0]["crash"]["offsets"]["corrupt"]))' t.json)" \
	"40960 122880 204800" "  the corrupt units named by offset"
"$IOMOON" verify c.dat --quiet --format none; is $? 1 "  plain verify agrees: exit 1"
rec=$(ls "$IOMOON_STATE_DIR"/file-*-"$(stat -c %i c.dat)".iomoon-durable)
python3 "$LUA_DIR/tear.py" c.dat 70 torn c.old "$rec"
"$IOMOON" verify c.dat --after-crash --quiet --format json --output t.json; rc=$?
is "$rc $(crash_json t.json corrupt torn lost_durable)" "1 3 1 0" "a genuine tear (half a later write over an older, both intact): torn"
"$IOMOON" verify c.dat --after-crash --atomic --quiet --format none; is $? 1 "  and with --atomic it fails"
# a tear of the write in flight at a power cut: issued after the record's
# last sync (and the state's save), so neither knows of its generation
# (before: corrupt, exit 1, the storage blamed for what a cut may do)
run "$LUA_DIR/durable-write.lua" f.dat; cp f.dat f.old; st=$(ls "$IOMOON_STATE_DIR"/file-*-"$(stat -c %i f.dat)".iomoon-verify)
cp "$st" f.state; run "$LUA_DIR/durable-write.lua" f.dat; cp f.state "$st"
python3 "$LUA_DIR/tear.py" f.dat 70 inflight f.old "${st%.iomoon-verify}.iomoon-durable"
"$IOMOON" verify f.dat --after-crash --quiet --format json --output f.json; rc=$?
is "$rc $(crash_json f.json corrupt torn lost_durable)" "0 0 1 0" "a tear of a write the record never learnt of (in flight at the cut): torn, exit 0"
python3 "$LUA_DIR/tear.py" f.dat 80 futuregen
"$IOMOON" verify f.dat --after-crash --quiet --format json --output f.json; rc=$?
is "$rc $(crash_json f.json corrupt torn)" "1 1 1" "  beside it, a later generation over scribbled bytes: still corrupt, exit 1"
# F9: another device at the device number a state was made on is refused,
# naming both (before: 3986 lost durable writes, "the storage lied")
# reattach FILE [OPTIONS]: FILE attached at $L again, once the detach is done (udev
# may hold the device a moment); 1 if another took the number meanwhile
reattach() {
	losetup -d "$L" || return 1
	for _ in $(seq 50); do
		losetup "${@:2}" "$L" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
if truncate -s 64m lA.img lB.img && L=$(losetup -f --show lA.img 2>/dev/null); then
	LOOPS="$LOOPS $L"
	run "$LUA_DIR/dev-write.lua" "$L"
	"$IOMOON" verify "$L" --after-crash --quiet --format none; is $? 0 "a loop device written with verification: verify --after-crash exit 0"
	if reattach lB.img; then
		out=$("$IOMOON" verify "$L" --after-crash --quiet --format none 2>&1)
		is $? 2 "a blank file attached at that loop device instead: verify --after-crash exit 2"
		like "$out" "is not the device its verification state was made on: the state .*blockdev-.* is of loop device over $TMP/lA\.img \(inode $(stat -c %i lA.img) on .*\), this is loop device over $TMP/lB\.img" \
			"  naming both devices"
		out=$("$IOMOON" verify "$L" --quiet --format none 2>&1)
		is $? 2 "  plain verify: exit 2 too"
		# the list beside the default state that names another directory is
		# not inherited by the next device at the number either
		reattach lA.img && run "$LUA_DIR/dev-write.lua" "$L" "$TMP/va" && reattach lB.img &&
			run "$LUA_DIR/dev-write.lua" "$L" && reattach lA.img
		"$IOMOON" verify "$L" --after-crash --verify-state "$TMP/va" --quiet --format none
		is $? 0 "A written with --verify-state DIR, then B at its number with the default: A still verifies with DIR (exit 0)"
		# the same file through another window of the same size (losetup
		# -o) is another device (before: 744 misdirected, 249 lost
		# durable, exit 1: the storage blamed)
		if reattach lB.img --sizelimit 33554432 && run "$LUA_DIR/dev-write.lua" "$L" &&
			reattach lB.img -o 1048576 --sizelimit 33554432; then
			out=$("$IOMOON" verify "$L" --after-crash --quiet --format none 2>&1)
			is $? 2 "B's first 32 MiB written, then attached from byte 1 MiB: verify --after-crash exit 2, not lost writes"
			like "$out" "the state .* is of loop device over $TMP/lB\.img \(inode [0-9]* on [0-9:]*\), 33554432 bytes, this is loop device over $TMP/lB\.img \(inode [0-9]* on [0-9:]*\), from byte 1048576, 33554432 bytes" \
				"  naming both windows of the file"
			reattach lB.img --sizelimit 33554432 && "$IOMOON" verify "$L" --after-crash --quiet --format none
			is $? 0 "  attached as written again: verifies (exit 0)"
		else
			skip "loop device $L taken by another while detached"
		fi
	else
		skip "loop device $L taken by another while detached"
	fi
else
	skip "no loop device here"
fi
# F11: iomoon verify with no state where it looks refuses (before: exit 0,
# every unit a lost write passed by its header alone)
w r.dat; cp r.dat r.old; w r.dat; cp r.old r.dat
"$IOMOON" verify r.dat --quiet --format none; is $? 1 "an older copy put back: iomoon verify exit 1"
out=$(IOMOON_STATE_DIR="$TMP/elsewhere" "$IOMOON" verify r.dat --quiet --format none 2>&1)
is $? 2 "the same with IOMOON_STATE_DIR where no state is: exit 2, not a pass"
like "$out" "^iomoon verify: no verification state: r\.dat has none in $TMP/elsewhere to verify it against" "  naming where it looked"
ok "$([ ! -e "$TMP/elsewhere" ]; echo $?)" "  and making nothing there"
IOMOON_STATE_DIR="$TMP/elsewhere" "$IOMOON" verify r.dat --no-state --output ns.txt >/dev/null
is $? 0 "--no-state: the headers alone, as asked: exit 0 (a lost write is not found that way)"
like "$(cat ns.txt)" "no state says what was written" "  and the row says so"
out=$("$IOMOON" verify r.dat --no-state --after-crash 2>&1); is $? 2 "--no-state with --after-crash: exit 2"
# F12: a file that lost its tail in the crash is judged: the units past
# its end lost (before: exit 2, "restore its size, or delete the state")
run "$LUA_DIR/durable-write.lua" cut.dat; truncate -s 2m cut.dat
out=$("$IOMOON" verify cut.dat --after-crash --quiet --format json --output cut.json 2>&1); rc=$?
is "$rc $(crash_json cut.json lost_durable unflushed_lost | awk '{ print $1 + $2, ($1 > 400) }')" "1 512 1" \
	"a 4 MiB file cut to 2 MiB: the 512 units past its end lost (durable ones lost_durable), exit 1"
is "$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; c=p["crash"]; print(c["durable_ok"] + c["unflushed_kept"], p["errors"] == c["lost_durable"], p["errors_by_errno"].get("lost_durable") == c["lost_durable"])' cut.json)" \
	"512 True True" "  the 512 units there judged as before; one lost_durable error per unit lost"
like "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phases"][0]["first_errors"][0]["message"])' cut.json 2>/dev/null)" \
	"lies past the end of the target, cut short to 2097152 bytes" "  the error says where the unit went"
out=$("$IOMOON" verify cut.dat --quiet --format none 2>&1); rc=$?
is "$rc" 2 "plain verify of the cut file: still exit 2 (it has no record to judge by)"
like "$out" "after a crash that cut it short, judge it with iomoon verify --after-crash .*keep it" "  and points to --after-crash, not to deleting the state"
# a file the crash emptied (less than one unit left): exit 2 saying how to
# have it judged, not "give a size to extend it" (verify has no --size)
run "$LUA_DIR/durable-write.lua" e.dat; truncate -s 0 e.dat
out=$("$IOMOON" verify e.dat --after-crash --quiet --format none 2>&1); rc=$?
is "$rc $(stat -c %s e.dat)" "2 0" "a file the crash emptied: exit 2, the file left as it is"
like "$out" "e\.dat is 0 bytes, less than one unit \(4096 bytes\).*truncate -s SIZE e\.dat.*--after-crash" "  says how to have it judged"
truncate -s 4m e.dat
"$IOMOON" verify e.dat --after-crash --quiet --format json --output e.json; rc=$?
is "$rc $(crash_json e.json lost_durable unflushed_lost | awk '{ print $1 + $2, ($1 > 900) }')" "1 1024 1" \
	"  given back its size as a hole, as it says: every unit lost (durable ones lost_durable), exit 1"
# a cut inside a unit: the unit it ends in is lost too (before: exit 2,
# "give a bs that divides the region", a bs verify cannot choose)
run "$LUA_DIR/durable-write.lua" mid.dat; truncate -s 2098176 mid.dat
out=$("$IOMOON" verify mid.dat --after-crash --quiet --format json --output mid.json 2>&1); rc=$?
is "$rc $(crash_json mid.json durable_ok lost_durable unflushed_lost | awk '{ print $1, $2 + $3 }')" "1 512 512" \
	"a 4 MiB file cut 1 KiB past 2 MiB: the 512 units before judged, the one cut across and the 511 past it lost, exit 1"
like "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phases"][0]["first_errors"][0]["message"])' mid.json 2>/dev/null)" \
	"unit at 2097152 lies across the end of the target, cut short to 2098176 bytes" "  the unit cut across named as such"
run "$LUA_DIR/durable-write.lua" grow.dat; truncate -s 8m grow.dat
"$IOMOON" verify grow.dat --after-crash --quiet --format json --output grow.json
is "$? $(crash_json grow.json lost_durable corrupt) $(python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["phases"][0]["verify"]; print(v["units_skipped"])' grow.json)" \
	"0 0 0 1024" "a file grown to twice its size since: judged, the new half blank and never written, exit 0 (before: exit 2, another write)"
run "$LUA_DIR/durable-write.lua" z.dat; dd if=/dev/zero of=z.dat bs=1M count=4 conv=notrunc status=none
out=$("$IOMOON" verify z.dat --after-crash --quiet 2>&1)
is $? 1 "a file zeroed after its durable write: exit 1"
like "$out" "not one unit holds a write of this target: if it is not the device or file the state was made on" \
	"  and the verdict says that not one unit holds its data, so it may be another device"
done_testing
