#!/bin/bash
# Files phases (issue 29): mdtest's create / stat / read / delete over a
# tree, exactly counted, on psync and io_uring; a foreign file beside the
# tree and a symlink out of it left alone; a Postmark-like mix reporting
# every operation; SIGINT; the bad inputs, refused with nothing made.
. "$(dirname "$0")/lib.sh"
D="$TMP/nas"
run() { "$IOMOON" run --format none --quiet "$LUA_DIR/$1" "${@:2}"; }
fresh() { rm -rf "$D" "$TMP/outside"; mkdir -p "$D" "$TMP/outside"; echo "somebody's mail" >"$D/keep.txt"; echo secret >"$TMP/outside/s"; }
tree_left() { (cd "$D" && find . -mindepth 1 | sort | tr '\n' ' '); }

for eng in "psync 1" "io_uring 8"; do
	set -- $eng
	fresh
	out=$(run mdtest.lua "$D" "$1" "$2" 2>&1)
	is "$(printf '%s\n' "$out" | cut -f1-3 | tr '\t\n' ' ')" \
		"mkdir 8 0 create 2000 0 stat 2000 0 read 2000 0 delete 2000 0 rmdir 8 0 " \
		"$1 qd $2: 2 workers x 4 dirs x 250 files: create, stat, read, delete exactly 2000 each, no error"
	like "$(printf '%s\n' "$out" | grep ^create | cut -f4,6 | tr '\t' ' ')" "^2000 $( [ "$1" = psync ] && echo syscall || echo io_uring)$" \
		"$1: result.files.created 2000, result.ops.create.how says the engine"
	is "$(tree_left)" "./keep.txt " "$1: the tree is gone after rmdir, the foreign file beside it is still there"
	is "$(cat "$D/keep.txt")" "somebody's mail" "$1: the foreign file is untouched"
done

# a symlink in the tree to a directory outside: never followed
fresh
run one.lua "$D" op=mkdir >/dev/null 2>&1
rmdir "$D/iomoon-files/w0/d1" && ln -s "$TMP/outside" "$D/iomoon-files/w0/d1"
for eng in "engine=psync" "engine=io_uring qd=4"; do
	out=$(run one.lua "$D" op=create $eng 2>&1)
	like "$out" "create	20	20" "$eng: the 20 files of the dir that is a symlink are errors, the other 20 made"
	like "$out" "first	create iomoon-files/w0/d1/f[0-9]+: Too many levels of symbolic links" "$eng: the error names the path and ELOOP"
	like "$out" "by_errno	ELOOP=20$" "$eng: result.errors_by_errno counts the 20 by name"
	is "$(ls "$TMP/outside")" "s" "$eng: nothing made outside the tree"
	run one.lua "$D" op=delete $eng >/dev/null 2>&1
done
rm "$D/iomoon-files/w0/d1"; mkdir "$D/iomoon-files/w0/d1"
run one.lua "$D" op=rmdir >/dev/null 2>&1
is "$(tree_left)" "./keep.txt " "the tree removed once the link is replaced"
# the tree's root itself a symlink out of dir: refused
ln -s "$TMP/outside" "$D/iomoon-files"
out=$(run one.lua "$D" op=create 2>&1); rc=$?
is "$rc" 2 "iomoon-files a symlink: refused as bad input (exit 2)"
like "$out" "a symbolic link is never followed" "iomoon-files a symlink: the message says why"
is "$(ls "$TMP/outside")" "s" "iomoon-files a symlink: nothing made through it"
rm "$D/iomoon-files"
# a directory called iomoon-files that iomoon did not make: nothing in it touched
mkdir "$D/iomoon-files"; echo x >"$D/iomoon-files/f0"
out=$(run one.lua "$D" op=delete 2>&1); rc=$?
is "$rc" 2 "an iomoon-files without iomoon's marker: refused (exit 2)"
like "$out" "was not made by iomoon" "an unmarked iomoon-files: the message says so"
is "$(cat "$D/iomoon-files/f0")" "x" "an unmarked iomoon-files: its file is untouched"
rm -rf "$D/iomoon-files"

# someone else's files inside the tree: delete leaves them; rmdir leaves
# the directories holding them and says so, one ENOTEMPTY error for each
# (the subtree and the root too), none again for a parent left holding
# only the tree's directories; the tree removed once they are taken away
deep="files.dirs=nil files.depth=2 files.width=2"
theirs="iomoon-files/w0/d0/d1 iomoon-files/w0/d1 iomoon-files/w0 iomoon-files"
for eng in "engine=psync" "engine=io_uring qd=4"; do
	fresh
	run one.lua "$D" op=create $deep files.files=3 $eng >/dev/null 2>&1
	for d in $theirs; do echo "their own" >"$D/$d/theirs"; done
	like "$(run one.lua "$D" op=delete $deep files.files=3 $eng 2>&1)" "^delete	12	0" "$eng: delete of the 12 files beside 4 foreign ones: no error"
	is "$(cd "$D" && find iomoon-files -name 'f*' | wc -l) $(cat "$D"/iomoon-files/w0/d0/d1/theirs)" "0 their own" \
		"$eng: delete removed the tree's files, the foreign file in a leaf is untouched"
	out=$(run one.lua "$D" op=rmdir $deep $eng 2>&1); rc=$?
	is "$rc" 1 "$eng: rmdir with foreign files in the tree: the run fails (exit 1)"
	like "$out" "^rmdir	3	4" "$eng: 3 directories removed, 4 errors: the leaf, the directory, the subtree and the root holding one"
	like "$out" "by_errno	ENOTEMPTY=4$" "$eng: result.errors_by_errno counts the 4 as ENOTEMPTY"
	like "$out" "first	rmdir iomoon-files[/a-z0-9]*: Directory not empty \(holds theirs, which is not the tree's: left alone\)" \
		"$eng: the first error names the directory and the foreign name in it"
	is "$(cd "$D" && find iomoon-files -name theirs | sort | tr '\n' ' ')" \
		"iomoon-files/theirs iomoon-files/w0/d0/d1/theirs iomoon-files/w0/d1/theirs iomoon-files/w0/theirs " "$eng: every foreign file is still there"
	for d in $theirs; do rm "$D/$d/theirs"; done
	like "$(run one.lua "$D" op=rmdir $deep $eng 2>&1)" "^rmdir	3	0" "$eng: once they are gone, rmdir removes the rest, no error"
	is "$(tree_left)" "./keep.txt " "$eng: the tree is gone"
done
# a foreign file in the root alone: an error, the run fails
fresh
run one.lua "$D" op=mkdir >/dev/null 2>&1
echo "their own" >"$D/iomoon-files/theirs"
out=$(run one.lua "$D" op=rmdir 2>&1); rc=$?
is "$rc:$(printf '%s\n' "$out" | grep -E '^(rmdir|first)' | tr '\t\n' '  ')" \
	"1:rmdir 2 1 first rmdir iomoon-files: Directory not empty (holds theirs, which is not the tree's: left alone) " \
	"a foreign file in the tree's root: rmdir removes the 2 directories, the root is an error (exit 1)"
is "$(cat "$D/iomoon-files/theirs")" "their own" "  the foreign file is untouched"
rm "$D/iomoon-files/theirs"; run one.lua "$D" op=rmdir >/dev/null 2>&1
is "$(tree_left)" "./keep.txt " "  rmdir once it is gone: the root removed"
# rmdir before delete: one error per leaf, none for the directories above;
# rmdir stopped by ios: what it did not reach is no error
fresh
run one.lua "$D" op=create $deep files.files=2 >/dev/null 2>&1
out=$(run one.lua "$D" op=rmdir $deep 2>&1)
like "$out" "^rmdir	0	4" "rmdir before delete: 4 errors, one per leaf still holding its files, none for w0/d0, w0/d1, w0"
like "$out" "first	rmdir iomoon-files/w0/d[01]/d[01]: Directory not empty \(holds the tree's file f[01]: delete the files first\)" \
	"rmdir before delete: the message says what to do"
run one.lua "$D" op=delete $deep files.files=2 >/dev/null 2>&1
like "$(run one.lua "$D" op=rmdir $deep ios=2 2>&1)" "^rmdir	2	0" "rmdir stopped by ios = 2 (over every level): 2 removed, the 4 left are no error"
run one.lua "$D" op=rmdir $deep >/dev/null 2>&1
is "$(tree_left)" "./keep.txt " "rmdir again: the tree is gone"

# a mix whose files are all in flight (qd 8 over 4 files) waits for one
# to complete, rather than stopping after the first 4 with no error
fresh
like "$(run one.lua "$D" ops=read:1 ios=400 files.dirs=1 files.files=4 engine=io_uring qd=8 2>&1)" "total	400	0	false" \
	"io_uring qd 8, a mix of reads over 4 files: all ios = 400 done"
rm -rf "$D/iomoon-files"

# a Postmark-like mix: each operation reported, the count exact
for eng in "engine=psync" "engine=io_uring qd=8"; do
	fresh
	out=$(run one.lua "$D" "ops=create:10,delete:10,read:40,append:40" ios=3000 bs=4k files.size=2k workers=2 $eng 2>&1)
	n=$(printf '%s\n' "$out" | awk '$1 ~ /^(create|delete|read|append)$/ && $2 > 0 && $3 == 0' | wc -l)
	is "$n" 4 "$eng: a Postmark-like mix reports create, delete, read and append, each with operations and no error"
	like "$out" "total	3000	0	false" "$eng: the mix did exactly ios = 3000 operations"
	run one.lua "$D" op=delete workers=2 >/dev/null 2>&1; run one.lua "$D" op=rmdir workers=2 >/dev/null 2>&1
	is "$(tree_left)" "./keep.txt " "$eng: after the mix, delete and rmdir leave only the foreign file"
done

# one tree shared by 3 workers (mdtest without -u): the files dealt out, each once
fresh
for op in create stat delete; do
	out=$(run one.lua "$D" op=$op workers=3 files.shared=true files.files=100 files.dirs=2 2>&1)
	like "$out" "^$op	200	0" "shared tree, 3 workers: $op exactly 200 files, no error"
done
run one.lua "$D" op=rmdir workers=3 files.shared=true files.dirs=2 >/dev/null 2>&1
is "$(tree_left)" "./keep.txt " "shared tree: removed by rmdir"

# ios below workers: the workers whose share is 0 do nothing (not a pass each)
fresh
for eng in "engine=psync" "engine=io_uring qd=5"; do
	like "$(run one.lua "$D" op=create workers=3 ios=2 files.files=5 $eng 2>&1)" "^create	2	0" "$eng: ios = 2 over 3 workers: exactly 2 creates"
	like "$(run one.lua "$D" ops=stat:1 workers=3 ios=1 files.files=5 $eng 2>&1)" "^stat	1	0" "$eng: a mix of ios = 1 over 3 workers: exactly 1 stat"
	run one.lua "$D" op=delete workers=3 files.files=5 >/dev/null 2>&1; run one.lua "$D" op=rmdir workers=3 >/dev/null 2>&1
done
is "$(tree_left)" "./keep.txt " "ios below workers: the tree removed after"

# a saved run: rendered again, and run again from its definitions in another directory
fresh
mkdir "$TMP/again"
"$IOMOON" suite elbencho --target "$D" --allow-write --quiet --format json --output "$TMP/r.json" >/dev/null 2>&1
like "$("$IOMOON" report "$TMP/r.json" --format markdown)" '\| WRITE: create \| [0-9]+ \|.*2000 ops \|' "a saved run's report: a row per operation"
out=$("$IOMOON" rerun "$TMP/r.json" --target "$TMP/again" --quiet --format csv 2>&1)
is "$(printf '%s\n' "$out" | python3 -c "import csv,sys; r=list(csv.DictReader(sys.stdin)); print(len(r), r[1]['create Ops'], sum(int(x['Errors']) for x in r))")" "6 2000 0" \
	"rerun from result.definition with --target: the six phases again, 2000 creates, no error"
is "$(ls -A "$TMP/again")" "" "rerun: its tree removed from the other directory too"

# intervals: a 1.2 s mix in 0.4 s intervals, every operation in one of them
fresh
out=$(run one.lua "$D" "ops=stat:50,read:50" duration=1.2s interval=0.4s 2>&1)
like "$out" "intervals	[34]	sum=ios" "intervals: 3 (or 4, a last sliver) of a 1.2 s mix, their operations adding up to the phase's"
# the progress line on a terminal, as a data phase shows it: operations per second
if command -v script >/dev/null; then
	out=$(script -qec "$IOMOON run --format none $LUA_DIR/one.lua $D ops=stat:50,read:50 duration=1.2s name=mix" /dev/null | tr '\r' '\n')
	like "$out" '\[mix\] [0-9.]+/1\.2 s +[1-9][0-9]* IOPS +[0-9.]+ MiB/s +\[eta [0-9]+ s\]' "a files phase shows a progress line on a terminal, its operations as IOPS"
else
	skip "no script(1)"
fi
run one.lua "$D" op=delete >/dev/null 2>&1; run one.lua "$D" op=rmdir >/dev/null 2>&1

# ENOSPC: appends with no end on a 1 MiB tmpfs are counted errors naming the path
S="$TMP/small"
mkdir -p "$S"
if mount -t tmpfs -o size=1m tmpfs "$S" 2>/dev/null; then
	MOUNTS="$S"
	out=$(run one.lua "$S" "ops=append:1" duration=0.5s bs=64k files.files=10 files.dirs=1 2>&1); rc=$?
	is "$rc" 1 "ENOSPC: the run fails (exit 1), it does not crash"
	like "$out" "first	append iomoon-files/w0/d0/f[0-9]+: No space left on device" "ENOSPC: the first error names the operation, the path and ENOSPC"
	like "$out" "append	[0-9]+	[1-9][0-9]*" "ENOSPC: appends before it counted, the failed ones counted as errors"
	run one.lua "$S" op=delete files.files=10 files.dirs=1 >/dev/null 2>&1; run one.lua "$S" op=rmdir files.dirs=1 >/dev/null 2>&1
	is "$(ls -A "$S")" "" "ENOSPC: the tree removed after"
	# on io_uring: a write failing (ENOSPC) skips the fsync after it and
	# closes the file; the error is counted with its path (an append is
	# checked once open, so not linked: a failed chain's own are the ELOOP
	# checks below)
	out=$(run linked.lua "$S" ops=append duration=0.3s bs=64k files.files=10 files.dirs=1 fsync=true 2>&1)
	like "$out" $'^append\t[0-9]+\t[1-9][0-9]*\t0$' "ENOSPC, io_uring: appends counted, the failed ones errors, none linked"
	like "$out" "first	append iomoon-files/w0/d0/f[0-9]+: No space left on device" "ENOSPC, io_uring: the error names the path and ENOSPC"
	run one.lua "$S" op=delete files.files=10 files.dirs=1 >/dev/null 2>&1; run one.lua "$S" op=rmdir files.dirs=1 >/dev/null 2>&1
	is "$(ls -A "$S"; df --output=used "$S" | tail -1 | tr -d ' ')" "0" "ENOSPC, io_uring linked: tree removed, no block of the tmpfs still held"
	# a create that fails on ENOSPC leaves its file made: the mix counts it
	# as there, so once the space is back a delete takes it (no EEXIST
	# creates on it for the rest of the phase, no short file left behind)
	for eng in "engine=psync" "engine=io_uring qd=4"; do
		run one.lua "$S" "ops=create:50,delete:50" duration=1.2s bs=8k files.files=20 files.dirs=1 files.size=32k $eng >"$TMP/mix.out" 2>&1 &
		sleep 0.3; head -c 700k /dev/zero >"$S/filler" 2>/dev/null; sleep 0.3; rm -f "$S/filler"; wait
		is "$(find "$S/iomoon-files" -type f -name 'f*' ! -size 32k | wc -l)" "0" "$eng: ENOSPC mid-mix, then space again: no short file left by a failed create"
		run one.lua "$S" op=delete files.files=20 files.dirs=1 >/dev/null 2>&1; run one.lua "$S" op=rmdir files.dirs=1 >/dev/null 2>&1
	done
else
	for i in 1 2 3 4 5 6 7 8 9; do skip "cannot mount a tmpfs here (not root)"; done
fi

# io_uring chains linked (IOSQE_IO_LINK, direct descriptors): the ring's
# file table registered (strace), every create, read and open a chain,
# the counts as psync's; a symlinked dir's files still errors with ELOOP
fresh
# (LeakSanitizer cannot run under ptrace: no leak check in the strace'd run)
out=$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=io_uring_register -o "$TMP/ur.strace" "$IOMOON" run --format none --quiet "$LUA_DIR/linked.lua" "$D" op=create files.size=10k bs=4k fsync=true 2>&1)
is "$out" $'create\t40\t0\t40\nfirst\tnone' "io_uring create of 40 files of 10k, fsync: 40 chains linked, no error"
like "$(cat "$TMP/ur.strace")" "io_uring_register\([0-9]+, IORING_REGISTER_FILES2" "strace: the ring's sparse file table registered (direct descriptors)"
is "$(find "$D/iomoon-files" -type f -name 'f*' -size 10k | wc -l)" "40" "linked creates: 40 files of 10k on disk"
for op in read open; do
	like "$(run linked.lua "$D" op=$op bs=4k 2>&1)" "^$op	40	0	40" "io_uring $op: 40 chains linked, no error"
done
# a file of 25 writes is more than a chain holds: opened alone, not counted as linked
like "$(run linked.lua "$D" op=write files.size=100k bs=4k 2>&1)" "^write	40	0	0$" "io_uring write of 25 x 4k each: no chain counted as linked"
is "$(find "$D/iomoon-files" -type f -name 'f*' -size 100k | wc -l)" "40" "io_uring write of 25 x 4k each: 40 files of 100k on disk"
rmdir "$D/iomoon-files/w0/d1" 2>/dev/null || { rm -f "$D"/iomoon-files/w0/d1/f*; rmdir "$D/iomoon-files/w0/d1"; }
ln -s "$TMP/outside" "$D/iomoon-files/w0/d1"
like "$(run linked.lua "$D" op=read 2>&1)" "first	read iomoon-files/w0/d1/f[0-9]+: Too many levels of symbolic links" "linked read through a symlinked dir: ELOOP, with the path"
rm "$D/iomoon-files/w0/d1"; mkdir "$D/iomoon-files/w0/d1"
run one.lua "$D" op=delete >/dev/null 2>&1; run one.lua "$D" op=rmdir >/dev/null 2>&1
is "$(tree_left)" "./keep.txt " "linked: the tree removed after"

# a hostile tree (issue 49): what someone put at one of the tree's names is
# never opened if it is not a regular file (a FIFO would hang the phase),
# never written or removed if iomoon did not make it (another owner, a hard
# link from outside, born before the tree); each an error naming it. Every
# run bounded by timeout: a hang fails, never hangs the suite.
five="files.dirs=1 files.files=5"
made() { rm -rf "$D/iomoon-files"; run one.lua "$D" op=create $five files.size=4k >/dev/null 2>&1; }
L0="$D/iomoon-files/w0/d0"
for eng in "engine=psync" "engine=io_uring qd=4"; do
	for op in read open append write delete; do
		fresh; made; rm "$L0/f3" && mkfifo "$L0/f3"
		out=$(timeout -k 1 6 "$IOMOON" run --format none --quiet "$LUA_DIR/one.lua" "$D" op=$op $five duration=2s $eng 2>&1); rc=$?
		is "$rc" 1 "FIFO at a tree name, $eng $op: the phase ends (exit 1, not killed)"
		like "$out" "first	$op iomoon-files/w0/d0/f3: Operation not permitted \(a FIFO, not a regular file: never opened" \
			"FIFO, $eng $op: an error naming it"
		like "$out" "^$op	4	1" "FIFO, $eng $op: the 4 files done, the FIFO one error"
		ok "$([ -p "$L0/f3" ]; echo $?)" "FIFO, $eng $op: the FIFO is still there"
	done
	# a hard link from outside the tree: never written through, nor removed
	for op in "op=write" "op=append" "op=rename" "ops=create:1,write:1,delete:1 ios=60" "op=delete"; do
		fresh; made; echo "precious data" >"$TMP/outside/precious"
		rm "$L0/f3" && ln "$TMP/outside/precious" "$L0/f3"
		out=$(timeout -k 1 20 "$IOMOON" run --format none --quiet "$LUA_DIR/one.lua" "$D" $op $five $eng 2>&1)
		is "$(cat "$TMP/outside/precious") $(stat -c %h "$TMP/outside/precious")" "precious data 2" \
			"hard link at a tree name, $eng $op: the file outside untouched, its link left"
		like "$out" "first	[a-z]+ iomoon-files/w0/d0/f3: Operation not permitted \(2 links to it" "hard link, $eng $op: an error naming it"
	done
done
# a name swapped between a check and an open: the check is of what was
# opened (its descriptor, before the first write; on io_uring a write's
# chain is not linked for it), so a hard link to another owner's file
# raced in at a tree name is never written through; and a psync read is
# checked on its descriptor, with no statx of the name (strace)
for eng in "engine=psync" "engine=io_uring qd=4"; do
	fresh; made; echo "precious data" >"$TMP/outside/precious"; chown 65534 "$TMP/outside/precious"
	python3 "$LUA_DIR/race_link.py" "$L0" "$TMP/outside/precious" 3 & racer=$!
	out=$(timeout -k 1 20 "$IOMOON" run --format none --quiet "$LUA_DIR/one.lua" "$D" ops=write:1,append:1 $five duration=3s $eng 2>&1)
	wait $racer
	is "$(head -c 40 "$TMP/outside/precious" | tr -c '[:print:]' '?') $(stat -c %s "$TMP/outside/precious")" "precious data? 14" \
		"a hard link raced in at a tree name, $eng: never written through"
	if printf '%s\n' "$out" | grep -q "^total	[0-9]*	0	"; then
		skip "a raced hard link, $eng: the racer never ran during the phase (this machine's load): no turn to count"
	else
		like "$out" "^write	[1-9][0-9]*	[1-9]" "a raced hard link, $eng: the writes done, the link's turns errors"
	fi
	rm -f "$L0"/.race-*
done
fresh; made
for op in write append; do
	like "$(run linked.lua "$D" op=$op $five files.size=8k bs=4k 2>&1)" "^$op	5	0	0$" "io_uring $op: 5 done, checked once open: no chain linked"
done
is "$(find "$D/iomoon-files" -type f -name 'f*' -size 12k | wc -l)" "5" "io_uring write then append: 8k (truncated after the check) + 4k each"
fresh; made
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=statx -o "$TMP/guard.strace" \
	"$IOMOON" run --format none --quiet "$LUA_DIR/one.lua" "$D" op=read $five >/dev/null 2>&1
is "$(grep -c 'statx([0-9]*, "f[0-9]' "$TMP/guard.strace") $(grep -c 'statx([0-9]*, "", [A-Z_|]*AT_EMPTY_PATH, STATX_TYPE' "$TMP/guard.strace")" \
	"0 6" "psync read of 5 files: each checked on its descriptor (a statx of an fd each, and the root's), none of a name"
# look-alikes: delete removes only what iomoon made
fresh; echo old >"$TMP/old"; touch "$TMP/old2"; sleep 0.1
run one.lua "$D" op=create $five files.files=7 >/dev/null 2>&1
for f in f0 f1 f2 f3 f4; do rm "$L0/$f"; done
mv "$TMP/old" "$L0/f0"                                  # born before the tree
echo theirs >"$L0/f1"; chown 65534 "$L0/f1"             # another owner
ln "$TMP/old2" "$L0/f2"                                 # a hard link
mkfifo "$L0/f3"                                         # not a file
ln -s "$TMP/outside/s" "$L0/f4"                         # a symbolic link
out=$(timeout -k 1 20 "$IOMOON" run --format none --quiet "$LUA_DIR/one.lua" "$D" op=delete $five files.files=7 2>&1)
like "$out" "^delete	2	5" "delete over 5 look-alikes and 2 files of iomoon: the 2 removed, the 5 refused"
is "$(ls "$L0" | tr '\n' ' ')" "f0 f1 f2 f3 f4 " "delete: every look-alike left where it was"
like "$out" "born before the tree" "delete: a file moved in is not iomoon's (born before the tree)"
rm -rf "$D/iomoon-files"
# the clock set back after the tree was made (its root born "in the
# future", here by debugfs on ext4): every file made since would look born
# before the tree, moved in; a phase that writes or removes is refused up
# front, saying why and what to do; a read still runs
E="$TMP/clockfs"
if command -v debugfs >/dev/null && command -v mkfs.ext4 >/dev/null && truncate -s 32m "$TMP/clock.img" &&
	mkfs.ext4 -q -F "$TMP/clock.img" && lo=$(losetup -f --show "$TMP/clock.img"); then
	LOOPS="$LOOPS $lo"; mkdir -p "$E"; mount "$lo" "$E"; MOUNTS="$E $MOUNTS"
	run one.lua "$E" op=create $five >/dev/null 2>&1
	umount_wait "$E"
	debugfs -w -R "set_inode_field /iomoon-files crtime 20300101000000" "$lo" >/dev/null 2>&1
	mount "$lo" "$E"
	sed -i "s/btime=[0-9]*\./btime=$(stat -c %W "$E/iomoon-files")./" "$E/iomoon-files/.iomoon-tree" # its marker follows
	out=$(run one.lua "$E" op=delete $five 2>&1); rc=$?
	is "$rc" 2 "a tree born after now (the clock set back): delete refused up front (exit 2)"
	like "$out" "iomoon-files was made at 2030-01-01 00:00:00 UTC, after now .*the clock was set back since.*remove it \(rm -r " \
		"the clock set back: the message says when, why and what to do"
	is "$(ls "$E/iomoon-files/w0/d0" | wc -l)" "5" "the clock set back: nothing removed"
	like "$(run one.lua "$E" op=read $five 2>&1)" "^read	5	0" "the clock set back: a read still runs"
	umount_wait "$E"; losetup -d "$lo"
else
	skip "no debugfs, mkfs.ext4 or loop device"; skip "-"; skip "-"; skip "-"
fi
# a tree another user made (in a shared sticky dir) is refused unless the
# phase says foreign_tree = true
# (make test's TMPDIR is the suite's own 0700 folder: uid 65534 gets
# through it, as through $TMP, for the length of this block)
up=$(dirname "$TMP"); case "$up" in */iomoon-make-test.*) ;; *) up="" ;; esac
S="$TMP/sticky"
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null && mkdir -m 1777 "$S" && chmod 755 "$TMP" &&
	{ [ -z "$up" ] || chmod o+x "$up"; } && setpriv --reuid=65534 --regid=65534 --clear-groups test -w "$S"; then
	(cd "$S" && setpriv --reuid=65534 --regid=65534 --clear-groups env IOMOON_STATE_DIR="$S" \
		"$IOMOON" run --format none --quiet "$LUA_DIR/one.lua" "$S" op=create $five >/dev/null 2>&1)
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "rm $S/iomoon-files/w0/d0/f2 && mkfifo $S/iomoon-files/w0/d0/f2"
	out=$(timeout -k 1 6 "$IOMOON" run --format none --quiet "$LUA_DIR/one.lua" "$S" op=read $five 2>&1); rc=$?
	is "$rc" 2 "a tree uid 65534 made: refused (exit 2)"
	like "$out" "iomoon-files: made by uid 65534, not by this user \(uid 0\): give files.foreign_tree = true" \
		"a foreign tree: the message names its owner and the field"
	out=$(timeout -k 1 6 "$IOMOON" run --format none --quiet "$LUA_DIR/one.lua" "$S" op=read $five duration=2s files.foreign_tree=true 2>&1); rc=$?
	is "$rc" 1 "files.foreign_tree = true: the tree is used, its FIFO an error (exit 1, no hang)"
	like "$out" "^read	4	1" "files.foreign_tree = true: 4 files read, the FIFO counted"
	rm -rf "$S"; chmod 700 "$TMP"; [ -z "$up" ] || chmod o-x "$up"
else
	rm -rf "$S"; chmod 700 "$TMP"; [ -z "$up" ] || chmod o-x "$up"
	skip "no user nobody or setpriv, or uid 65534 cannot reach $S"; skip "-"; skip "-"; skip "-"
fi
rm -rf "$D/iomoon-files"

# SIGINT stops a mix within a second
fresh
sigint_after 1 run --format none --quiet "$LUA_DIR/one.lua" "$D" "ops=stat:50,read:50" duration=30s
ok "$(under "$t" 1.5)" "SIGINT: a files phase stops in ${t} s"
rm -rf "$D/iomoon-files"

# the ready suites of files phases, end to end, leaving dir as it was
for s in "mdtest 7" "elbencho 6" "postmark 3" "build-tree 4"; do
	set -- $s
	fresh
	"$IOMOON" suite $1 --target "$D" --allow-write --time 0.5 --ios 2000 --quiet --format csv --output "$TMP/$1.csv" >/dev/null 2>"$TMP/$1.err"
	ok $? "suite $1 runs end to end" || sed 's/^/#   /' "$TMP/$1.err"
	is "$(python3 -c "import csv,sys; r=list(csv.reader(open(sys.argv[1]))); print(len(r)-1, sum(int(x['Errors']) for x in csv.DictReader(open(sys.argv[1]))))" "$TMP/$1.csv")" "$2 0" \
		"suite $1: $2 phases in the CSV, no errors"
	is "$(tree_left)" "./keep.txt " "suite $1: the tree is gone, the foreign file left"
done

# fio's six file and directory engine examples (tests/fio/*-ioengine.fio,
# their options as fio's examples give them; filecreate's 16 x 31,250 files
# cut to 16 x 100 here) through iomoon fio: each operation counted exactly
for f in "filecreate create 1600" "filestat stat 1200" "filedelete delete 1200" "dircreate mkdir 180" \
	"dirstat dirstat 300" "dirdelete rmdir 1200"; do
	set -- $f
	fresh
	sed 's/^nrfiles=31250$/nrfiles=100/' "$T/fio/$1-ioengine.fio" >"$TMP/$1.fio"
	out=$("$IOMOON" fio "$TMP/$1.fio" --target "$D" --allow-write --format json --quiet 2>"$TMP/$1.err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = [p for p in d["phases"] if not p["name"].endswith(")")][0]
print(m["ops"][sys.argv[1]]["ops"], sum(p["errors"] for p in d["phases"]))' "$2")
	is "$out" "$3 0" "fio's $1 example: $3 ${2}s measured, no error in any phase" || sed 's/^/#   /' "$TMP/$1.err"
	is "$(tree_left)" "./keep.txt " "fio's $1 example: the tree removed after it"
done

# bad input: exit 2, a message naming the field, nothing made
bad() { # bad WANT_REGEX DESCRIPTION ARGS...
	local want=$1 what=$2 out rc
	shift 2
	fresh
	out=$(run one.lua "$D" "$@" 2>&1); rc=$?
	is "$rc" 2 "bad input, $what: exit 2"
	like "$out" "$want" "bad input, $what: the message says what is right"
	is "$(tree_left)" "./keep.txt " "bad input, $what: nothing made"
}
bad "'crate' is not an operation.*did you mean 'create'" "op = crate" op=crate
bad "no field 'fils'|fils.*did you mean 'files'" "files.fils" op=create files.fils=3
bad "psync does one operation at a time" "psync at qd 4" op=create engine=psync qd=4
bad "is not empty and holds no tree of iomoon" "a foreign dir without allow_write" op=create files.allow_write=false
bad "runs for a duration or a number of operations" "a mix without duration or ios" "ops=read:1"
bad "give op|not both" "op and ops" op=create "ops=read:1" ios=5
bad "free inodes|free \(smaller" "more than the file system holds" op=create files.files=1000000000 files.size=1g
bad "no tree of iomoon" "stat of no tree" op=stat
bad "not a directory" "a dir that is not there" op=create files.dir=$TMP/nope
done_testing
