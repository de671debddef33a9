#!/bin/bash
# Engine nfs against a real NFS-Ganesha started here (memory FSAL, NFSv4,
# 127.0.0.1, stopped on every exit path: lib_ganesha.sh): a file iomoon
# creates is written and read through libnfs, what it writes is there for
# another client, crc32c catches a corruption made by another connection,
# COMMITs are counted, trims refused, the safety rules of a local file hold
# (a file iomoon did not create is only read), a files phase over an
# nfs:// directory makes, stats, reads, deletes and removes its tree as
# another client (nfs-ls, nfs-cat) sees it, so does fio's ioengine=nfs
# (NFSv3: 52-nfs3.t), and every failure (a wrong
# export, a read-only export, a refused connection, a server killed
# mid-phase) is a clear error, never a hang.
. "$(dirname "$0")/lib.sh"
. "$T/lib_ganesha.sh"
cd "$TMP" || exit 1

if ! "$IOMOON" list 2>/dev/null | grep -Eq '^  nfs +works'; then
	skip "engine nfs is not built (make deps installs libnfs-dev, then make)"
	done_testing
	exit 0
fi
ok 0 "iomoon list: engine nfs works"
# SIGINT while a files phase's nfs:// dir is checked against a server that
# never answers (a listening socket whose backlog is full: the connect
# stays pending; it ends by itself after 20 s and is killed on every exit
# path): iomoon stops within a second (issue 49), says it was interrupted
# and writes its report
SILENT_PID=""
trap '[ -n "$SILENT_PID" ] && kill "$SILENT_PID" 2>/dev/null; ganesha_cleanup' EXIT
python3 - >silent.port <<'PY' &
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)
port = s.getsockname()[1]
fill = []
for _ in range(4):
    c = socket.socket(); c.setblocking(False)
    try: c.connect(("127.0.0.1", port))
    except BlockingIOError: pass
    fill.append(c)
print(port, flush=True)
time.sleep(20)
PY
SILENT_PID=$!
for _ in $(seq 50); do [ -s silent.port ] && break; sleep 0.1; done
silent="nfs://127.0.0.1/mem/t?version=4&nfsport=$(cat silent.port)"
for op in stat read delete; do
	sigint_after 1 run --format json --output silent.$op.json "$LUA_DIR/files.lua" "$silent" op=$op workers=2 qd=4
	is "$rc" 1 "SIGINT while a files phase ($op) connects to a silent server: exit 1"
	ok "$(under "$t" 1)" "  it exited $t s after the signal (< 1, as doc/cli.md promises; the connect timeout is 10 s)"
	like "$(cat sig.err)" "interrupted" "  it says it was interrupted"
	ok "$([ -s silent.$op.json ]; echo $?)" "  its report is written"
done
kill "$SILENT_PID" 2>/dev/null; wait "$SILENT_PID" 2>/dev/null; SILENT_PID=""
if ! ganesha_start; then
	skip "$GANESHA_WHY"
	done_testing
	exit 0
fi
json() { python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(*eval(sys.argv[2]))' "$@"; }

# ---- a file iomoon creates: written, read, there for another client ----
"$IOMOON" run --format json "$LUA_DIR/write.lua" "$(nfs_url mem/w.dat)" >w.json 2>w.err
is $? 0 "1 MiB of the offset pattern written to a new file through nfs: exit 0"
is "$(json w.json 'p["engine"], p["bytes"], "password" in str(p)')" "nfs 1048576 False" \
	"the result names engine nfs and 1 MiB written"
nfs-cp "$(nfs_url mem/w.dat)" w.copy >/dev/null 2>&1
is "$(python3 - w.copy <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
print(len(d), sum(1 for i in range(0, 1 << 20, 8) if struct.unpack_from("<Q", d, i)[0] != i))
PY
)" "2097152 0" "nfs-cp reads it back: 2 MiB, every 8-byte word of the first MiB its own offset"
nfs-cp "$(nfs_url mem/.w.dat.iomoon)" mark.txt >/dev/null 2>&1
like "$(cat mark.txt)" "^iomoon-nfs-1 fileid=[0-9]+$" "creating it left its mark beside it (.w.dat.iomoon)"
out=$("$IOMOON" quick --target "$(nfs_url mem/w.dat)" --qd 8 --time 0.3 --format json 2>&1)
is $? 0 "random 4k reads of it at qd 8: exit 0"
like "$out" '"engine": "nfs"' "auto picked engine nfs for the nfs:// URL"
"$IOMOON" quick --target "$(nfs_url mem/w.dat)" --read 0 --time 0.3 --quiet >/dev/null 2>w2.err
is $? 0 "writing the file it created needs no --allow-write: exit 0"
out=$("$IOMOON" quick --target "$(nfs_url mem/w.dat)" --ioengine nfs --numjobs 2 --read 50 --bs 512 --time 0.3 \
	--format json 2>&1 | python3 -c 'import json,sys; p=json.load(sys.stdin)["phases"][0]; print(p["workers"], p["errors"], p["write"]["ios"] > 0)')
is "$out" "2 0 True" "2 workers (--ioengine nfs --numjobs 2), each an NFSv4 client of its own: reads and writes, no error"

# ---- verification: a corruption made through another connection is found ----
"$IOMOON" run --format none "$LUA_DIR/fill.lua" "$(nfs_url mem/v.dat)" 2>v1.err
is $? 0 "2 MiB written with crc32c through nfs: exit 0"
"$IOMOON" run --format json "$LUA_DIR/check.lua" "$(nfs_url mem/v.dat)" >v0.json 2>v0.err
is "$?:$(json v0.json 'p["errors"],')" "0:0" "read back, untouched: exit 0, no error"
IOMOON_STATE_DIR="$TMP/other" "$IOMOON" run --format none "$LUA_DIR/corrupt.lua" "$(nfs_url mem/v.dat)" 2>c.err
is $? 0 "another client (a run with a state of its own) writes 512 bytes into the unit at 1 MiB"
"$IOMOON" run --format json "$LUA_DIR/check.lua" "$(nfs_url mem/v.dat)" >v2.json 2>v2.err
is $? 1 "reading it back after the corruption: exit 1"
is "$(json v2.json 'p["errors"], p["errors_by_errno"].get("corrupt"), p["first_error"]["offset"]')" "1 1 1048576" \
	"crc32c through nfs: one corrupt unit, at 1 MiB"

# ---- syncs are COMMITs, trims are refused, pacing and mixes ----
"$IOMOON" run --format json "$LUA_DIR/flush.lua" "$(nfs_url mem/w.dat)" >f.json 2>f.err
is "$(json f.json 'p["sync"]["ios"] >= 8, p["sync"]["errors"]')" "True 0" "fsync every 10 writes: COMMITs counted, none failed"
out=$("$IOMOON" run "$LUA_DIR/trim.lua" "$(nfs_url mem/w.dat)" 2>&1)
is $? 2 "trims on an NFS file: exit 2"
like "$out" "the server does not offer trim" "it says trims cannot be done"
"$IOMOON" run --format json "$LUA_DIR/paced.lua" "$(nfs_url mem/w.dat)" >p.json 2>p.err
is "$(json p.json 'abs(p["iops"] - 500) < 50, p["errors"], p["read"]["ios"] > 0 and p["write"]["ios"] > 0')" "True 0 True" \
	"a paced 4k/64k mix at 500 IOPS: within 10 %, reads and writes, no error"

# ---- safety: a file iomoon did not create is only read ----
head -c 3584 /dev/urandom >theirs
nfs-cp theirs "$(nfs_url mem/theirs.dat)" >/dev/null 2>&1
out=$("$IOMOON" quick --target "$(nfs_url mem/theirs.dat)" --bs 512 --read 0 --time 0.2 2>&1)
is $? 2 "writing a file nfs-cp made, without --allow-write: exit 2"
like "$out" "iomoon did not create this file; writing to it needs allow_write" "it says allow_write"
out=$("$IOMOON" quick --target "$(nfs_url mem/theirs.dat)" --bs 512 --size 1M --time 0.2 2>&1)
is $? 2 "growing it without --allow-write: exit 2"
like "$out" "iomoon did not create it; making it 1048576 bytes writes to it" "it says growing writes to it"
nfs-cp "$(nfs_url mem/theirs.dat)" back >/dev/null 2>&1
cmp -s theirs back
ok $? "the file is unchanged"
"$IOMOON" quick --target "$(nfs_url mem/theirs.dat)" --bs 512 --time 0.2 --quiet >/dev/null 2>&1
is $? 0 "reading it works"
out=$("$IOMOON" quick --target "$(nfs_url mem/new.dat)" --time 0.2 2>&1)
is $? 2 "a missing file without --size: exit 2"
like "$out" "needed to create" "it asks for a size"
out=$("$IOMOON" quick --target "$(nfs_url mem/w.dat)" --engine io_uring --time 0.2 2>&1)
is $? 2 "engine io_uring on an nfs:// URL: exit 2"
like "$out" 'engine = "auto" or "nfs"' "it names the engine that can"
out=$("$IOMOON" quick --target "nfs://user:s3cr3tpw@127.0.0.1/mem/w.dat?version=4&nfsport=$GANESHA_PORT" --time 0.2 2>&1)
is $? 1 "a URL with a user and password (the server refuses it): exit 1"
like "$out" "nfs://user@127.0.0.1/mem/w.dat" "the message shows the URL without its password"
[[ "$out" != *s3cr3tpw* ]]
ok $? "the password appears nowhere in it"

# ---- files phases over an nfs:// directory (files_nfs.c) ----
fdir=$(nfs_url mem/tree)
fls() { nfs-ls -R "$fdir" 2>/dev/null | awk '{print $1 ~ /^d/ ? "d" : $5, $NF}' | sort | tr '\n' ' '; }
frun() { "$IOMOON" run --format none --quiet "$LUA_DIR/files.lua" "$@" 2>&1 | grep -Ev '^(dir|first)' | tr '\t\n' '  '; }
is "$(frun "$fdir" op=create workers=2 qd=8)" "create 80 0 0 libnfs engine nfs 8 files 80 0 327680 0 " \
	"create over nfs://127.0.0.1/mem/tree (made), qd 8: 2 workers x 2 dirs x 20 files of 4 KiB, 80 made, no error"
is "$(fls | tr ' ' '\n' | grep -c '^4096$')" 80 "nfs-ls sees the 80 files of 4096 bytes on the server"
like "$(fls)" "^[0-9]+ iomoon-files/.iomoon-tree 4096 iomoon-files/w0/d0/f0 .* d iomoon-files/w0/d1 d iomoon-files/w1 d iomoon-files/w1/d0 d iomoon-files/w1/d1 $" \
	"  in iomoon-files/w0/d0..d1 and w1/d0..d1, the tree marked (.iomoon-tree)"
echo "somebody's mail" >keep.txt
nfs-cp keep.txt "$(nfs_url mem/tree/keep.txt)" >/dev/null 2>&1
is "$(frun "${fdir/nfs:/NFS:}" op=stat workers=2 qd=8)" "stat 80 0 0 libnfs engine nfs 8 files 0 0 0 0 " \
	"stat, qd 8 (the scheme NFS:// in capitals): 80 GETATTRs, no error"
is "$(frun "$fdir" op=read workers=2 qd=4 bs=1k)" "read 80 0 0 libnfs engine nfs 4 files 0 0 0 327680 " \
	"read in 1 KiB READs, qd 4: 80 files, 327680 bytes, no error"
is "$(frun "$fdir" op=delete workers=2)" "delete 80 0 0 libnfs engine nfs 1 files 0 80 0 0 " "delete: 80 REMOVEs"
is "$(fls | tr ' ' '\n' | grep -c '^4096$')" 0 "nfs-ls: no file of the tree is left"
is "$(frun "$fdir" op=rmdir workers=2)" "rmdir 4 0 0 libnfs engine nfs 1 files 0 0 0 0 " "rmdir: the 4 leaf directories"
is "$(fls)" "16 keep.txt " "the tree is gone from the server; the foreign file beside it is still there"
is "$(nfs-cat "$(nfs_url mem/tree/keep.txt)" 2>/dev/null)" "somebody's mail" "the foreign file is untouched"
out=$("$IOMOON" run --quiet "$LUA_DIR/files.lua" "$fdir" op=create files.allow_write=false 2>&1)
is $? 2 "a tree in the non-empty foreign directory without allow_write: exit 2"
like "$out" "files.dir: nfs://127.0.0.1/mem/tree.* is not empty and holds no tree of iomoon; give files.allow_write" \
	"  it names the field, the URL and allow_write"
is "$(fls)" "16 keep.txt " "  nothing was made"
nfs-cp keep.txt "$(nfs_url mem/tree/iomoon-files)" >/dev/null 2>&1
out=$("$IOMOON" run --quiet "$LUA_DIR/files.lua" "$fdir" op=create files.allow_write=true 2>&1)
is $? 2 "an iomoon-files that another client made (a file): exit 2, even with allow_write"
like "$out" "iomoon-files was not made by iomoon .*nothing in it is touched" "  it says nothing in it is touched"
is "$(fls):$(nfs-cat "$(nfs_url mem/tree/iomoon-files)" 2>/dev/null)" "16 iomoon-files 16 keep.txt :somebody's mail" \
	"  nothing was made, the file is unchanged"
out=$("$IOMOON" run "$LUA_DIR/files.lua" "nfs://user:s3cr3tpw@127.0.0.1/mem/tree?version=4&nfsport=$GANESHA_PORT" op=stat 2>&1)
like "$out" "nfs://user@127.0.0.1/mem/tree" "a files.dir with a password: shown without it"
[[ "$out" != *s3cr3tpw* ]]
ok $? "  the password appears nowhere"

mdir=$(nfs_url mem/mix)
is "$(frun "$mdir" op=mkdir workers=2):$(frun "$mdir" op=rmdir workers=2)" \
	"mkdir 4 0 0 libnfs engine nfs 1 files 0 0 0 0 :rmdir 4 0 0 libnfs engine nfs 1 files 0 0 0 0 " \
	"mkdir then rmdir over nfs: 2 workers x 2 directories each, no error"
out=$(frun "$mdir" ops=create:1,stat:2,read:2,append:1,rename:1,readdir:1,delete:1 ios=200 workers=2 qd=4)
is "$(python3 -c 'import sys; w=sys.argv[1].split(); i=w.index("engine"); print(sum(int(w[k + 1]) for k in range(0, i, 5)), sum(int(w[k + 2]) for k in range(0, i, 5)))' "$out")" \
	"200 0" "a Postmark-like mix over nfs, qd 4 (create, stat, read, append, rename, readdir, delete): 200 operations, no error"
frun "$mdir" op=delete workers=2 >/dev/null
frun "$mdir" op=rmdir workers=2 >/dev/null
is "$(nfs-ls "$mdir" 2>/dev/null | wc -l)" 0 "  its tree deleted and removed"
# a mix whose files are all in flight (qd 4 over 2 files) waits for one
# to complete, rather than stopping after the first 2 with no error
like "$(frun "$mdir" ops=read:1 ios=100 files.dirs=1 files.files=2 qd=4)" "^read 100 0 " \
	"a mix of reads over 2 files at qd 4 over nfs: all ios = 100 done"
frun "$mdir" op=delete files.dirs=1 files.files=2 >/dev/null
frun "$mdir" op=rmdir files.dirs=1 >/dev/null

# someone else's files in the tree (the leaf d1, the subtree, the root):
# each an ENOTEMPTY error of rmdir, the file left alone
ldir=$(nfs_url mem/left)
frun "$ldir" op=mkdir >/dev/null
for d in iomoon-files/w0/d1 iomoon-files/w0 iomoon-files; do
	nfs-cp keep.txt "${ldir%%\?*}/$d/theirs?${ldir#*\?}" >/dev/null 2>&1
done
out=$("$IOMOON" run --format none --quiet "$LUA_DIR/files.lua" "$ldir" op=rmdir 2>&1); rc=$?
is "$rc:$(printf '%s\n' "$out" | grep ^rmdir | cut -f1-3 | tr '\t' ' ')" "1:rmdir 1 3" \
	"rmdir over nfs with 3 foreign files in the tree: d0 removed, 3 errors, exit 1"
like "$out" "first	rmdir iomoon-files/w0/d1: Directory not empty \(holds theirs, which is not the tree's" \
	"  the first error names the directory and the foreign name"
is "$(nfs-ls -R "$ldir" 2>/dev/null | grep -c theirs)" 3 "  the 3 foreign files are still there"

# ---- fio's ioengine=nfs (examples/nfs.fio, shrunk): files beneath nfs_url ----
cp "$T/fio/nfs.fio" nfs.fio
NFS_URL=$(nfs_url mem) "$IOMOON" fio nfs.fio --quiet --format json --output fio.json 2>fio.err
is $? 0 "iomoon fio nfs.fio (ioengine=nfs, nfs_url=nfs://127.0.0.1/mem?...): exit 0"
is "$(python3 -c 'import json; ps=json.load(open("fio.json"))["phases"]
print(*[(p["name"], p["engine"], p["bytes"], p["errors"]) for p in ps])')" "('write', 'nfs', 2097152, 0) ('write (verify)', 'nfs', 2097152, 0) ('read', 'nfs', 2097152, 0)" \
	"the write job wrote 2 x 1 MiB on engine nfs, its crc32c read-back and the read job read them, no error"
for i in 0 1; do nfs-cp "$(nfs_url mem/myfiles.0.$i.0)" "fio$i.copy" >/dev/null 2>&1; done
is "$(python3 - fio0.copy fio1.copy <<'PY'
import sys
a, b = (open(f, "rb").read() for f in sys.argv[1:])
print(len(a), len(b), len(set(a[:1 << 20])) > 200, a[:1 << 20] != b[:1 << 20])
PY
)" "1048576 1048576 True True" "nfs-cp finds myfiles.0.0.0 and myfiles.0.1.0 (filename_format) beneath nfs_url: 1 MiB each, random data, not alike"
out=$("$IOMOON" fio --name=n --ioengine=nfs --size=1m 2>&1)
is $? 2 "ioengine=nfs without nfs_url: exit 2"
like "$out" "ioengine=nfs needs nfs_url=nfs://HOST/EXPORT" "  it says nfs_url is needed and its form"

# ---- failures are clear and quick ----
out=$(timeout 30 "$IOMOON" quick --target "$(nfs_url nope/f.dat)" --size 1M --time 0.2 2>&1)
is $? 1 "a wrong export: exit 1"
like "$out" "cannot mount the export: .*NOENT" "it says the export cannot be mounted"
out=$(timeout 30 "$IOMOON" quick --target "$(nfs_url ro/f.dat)" --size 1M --time 0.2 2>&1)
is $? 2 "creating a file on a read-only export (Access_Type = RO): exit 2"
like "$out" "read-only" "it says the export is read-only"
out=$(timeout 30 "$IOMOON" quick --target "nfs://127.0.0.1/mem/w.dat?version=4&nfsport=1" --time 0.2 2>&1)
is $? 1 "connection refused: exit 1"
like "$out" "cannot mount the export" "connection refused: said so"
# ---- files over nfs:// under mpirun: one export, a subtree per rank ----
case "$IOMOON" in *asan*) mpi_ok=0 ;; *) mpi_ok=1 ;; esac
if [ $mpi_ok = 1 ] && command -v mpirun >/dev/null && "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi '; then
	mdir=$(nfs_url mem/ranks)
	mrun() {
		OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 timeout -k 5 60 mpirun --allow-run-as-root \
			--oversubscribe --bind-to none -n 2 "$IOMOON" run --format none --quiet "$LUA_DIR/files.lua" "$@" 2>&1 |
			grep -Ev '^(dir|first)' | tr '\t\n' '  '
	}
	is "$(mrun "$mdir" op=create)" "create 80 0 0 libnfs engine nfs 1 files 80 0 327680 0 " \
		"mpirun -n 2, files over nfs://: rank 0 makes the root, each rank its subtree: 80 creates merged"
	is "$(nfs-ls -R "$mdir" 2>/dev/null | awk '$1 !~ /^d/ && $5 == 4096 {split($NF, p, "/"); print p[2]}' | sort | uniq -c | tr -s ' ' | tr '\n' ' ')" \
		" 40 r0w0  40 r1w0 " "  nfs-ls: 40 files under each rank's subtree"
	is "$(mrun "$mdir" op=delete)" "delete 80 0 0 libnfs engine nfs 1 files 0 80 0 0 " "  and 80 deletes merged"
else
	skip "files over nfs:// under mpirun: no mpirun (or under ASan)"
fi

# SIGINT while every I/O waits on a server that stopped answering: the
# ones in flight are abandoned 250 ms after it, the connection with them
gpid=$GANESHA_PID
(sleep 1; kill -STOP "$gpid") &
sigint_after 2 quick --target "$(nfs_url mem/w.dat)" --qd 4 --time 10 --format json --output sig.json --quiet
wait
kill -CONT "$gpid"
is "$rc" 1 "SIGINT 1 s after the server stopped answering: exit 1 (interrupted)"
ok "$(under "$t" 2)" "  iomoon exited $t s after the signal (< 2; the I/O timeout is 30 s)"
is "$(phase_of sig.json interrupted failed)" "True False" "  the report says interrupted, not failed"
# connecting to a server that answers nothing: SIGINT ends it at once
kill -STOP "$gpid"
sigint_after 1 quick --target "$(nfs_url mem/w.dat)" --time 1 --quiet
kill -CONT "$gpid"
is "$rc" 1 "SIGINT while mounting from a server that answers nothing: exit 1"
ok "$(under "$t" 2)" "  it exited $t s after the signal (< 2; the connect timeout is 10 s)"
like "$(cat sig.err)" "interrupted" "  and says it was interrupted"

# a server that stops answering (SIGSTOP) fails the phase after the I/O
# timeout (IOMOON_NET_IO_TIMEOUT, 2 s here), well before the phase's end
gpid=$GANESHA_PID
(sleep 1; kill -STOP "$gpid") &
killer=$!
t0=$(secs)
out=$(IOMOON_NET_IO_TIMEOUT=2 timeout 60 "$IOMOON" quick --target "$(nfs_url mem/w.dat)" --qd 4 --time 8 --quiet 2>&1)
rc=$?
t=$(since "$t0")
wait "$killer"
kill -CONT "$gpid"
is "$rc" 1 "a server that stops answering: exit 1 (not 124, a hang)"
ok "$(under "$t" 5)" "it ended $t s after it began (< 5: the stop at 1 s and the 2 s I/O timeout, not the 8 s phase)"
like "$out" "engine nfs: Connection timed out" "it says the I/O timed out"
# SIGINT in a files phase over nfs: nothing more starts, what is in flight
# ends or is abandoned 250 ms later
sigint_after 1 run --format json --output sigf.json "$LUA_DIR/files.lua" "$(nfs_url mem/sig)" op=create \
	files.dirs=4 files.files=100000 qd=4
is "$rc:$(phase_of sigf.json interrupted engine)" "1:True nfs" "SIGINT during a files phase over nfs: exit 1, the result says interrupted"
ok "$(under "$t" 2)" "  it exited $t s after the signal (< 2)"
# a files phase whose server stops answering: what is in flight fails
# after the I/O timeout (2 s here), the phase ends, named
gpid=$GANESHA_PID
(sleep 1; kill -STOP "$gpid") &
killer=$!
t0=$(secs)
out=$(IOMOON_NET_IO_TIMEOUT=2 timeout 60 "$IOMOON" run --format none --quiet "$LUA_DIR/files.lua" "$(nfs_url mem/stall)" \
	op=create files.dirs=4 files.files=100000 qd=4 2>&1)
rc=$?
t=$(since "$t0")
wait "$killer"
kill -CONT "$gpid"
is "$rc" 1 "a files phase over a server that stops answering: exit 1, errors (not 124, a hang)"
ok "$(under "$t" 6)" "  $t s after it began (< 6: the stop at 1 s and the 2 s I/O timeout, not 400,000 creates)"
like "$out" "first	create iomoon-files/w0/d[0-9]+/f[0-9]+: Connection timed out" "  the first error names the file and the timeout"
gpid=$GANESHA_PID
(sleep 1; kill -9 "$gpid") &
killer=$!
t0=$(secs)
out=$(timeout 60 "$IOMOON" quick --target "$(nfs_url mem/w.dat)" --qd 8 --time 10 --quiet 2>&1)
rc=$?
t=$(since "$t0")
wait "$killer"
GANESHA_PID=""
is "$rc" 1 "the server killed mid-phase: exit 1 (not 124, a hang)"
ok "$(under "$t" 4)" "the phase ended $t s after it began (< 4: within seconds of the kill at 1 s, not at its 10 s end)"
like "$out" "engine nfs: " "the engine's failure mid-phase is named"
done_testing
