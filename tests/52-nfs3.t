#!/bin/bash
# Engine nfs over NFSv3 (version=3) against NFS-Ganesha: Ganesha 4.3
# serves v3 only once it has registered it and MOUNT with rpcbind, the
# machine's one portmapper (port 111 of every address: `rpcbind -h
# 127.0.0.1` aborts here, and TCP is never narrowed). So this test runs in
# network, mount and PID namespaces of its own (unshare): its own
# loopback, its own /run, its own rpcbind and Ganesha, all gone with it;
# nothing of the machine's is touched. A file written over v3 is read back
# over v4 by nfs-cp, a 1 MiB write is one WRITE (the server's wtmax, not
# v4's 3,584 bytes), and a files phase runs over a v3 directory.
if [ -z "$IOMOON_NFS3_NS" ]; then
	why=""
	[ "$(id -u)" = 0 ] || why="needs root (namespaces, rpcbind)"
	for c in unshare ip rpcbind rpcinfo; do
		[ -n "$why" ] || command -v "$c" >/dev/null || why="$c is missing (make deps installs nfs-ganesha, which needs rpcbind)"
	done
	[ -n "$why" ] || unshare --net --mount --pid --fork true 2>/dev/null || why="unshare cannot make namespaces here"
	if [ -n "$why" ]; then
		echo "1..0 # SKIP $why"
		exit 0
	fi
	IOMOON_NFS3_NS=1 exec unshare --net --mount --pid --fork --mount-proc "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$T/lib_ganesha.sh"
cd "$TMP" || exit 1
N="$T/lua/52-nfs"

ip link set lo up
# an address that is not a loopback one (TEST-NET-1, on lo: nothing leaves
# the namespace), or getaddrinfo's AI_ADDRCONFIG finds no IPv4 and
# Ganesha "No IP address found for 127.0.0.1"
ip addr add 192.0.2.1/32 dev lo
mount -t tmpfs iomoon-run /run # rpcbind's socket and lock, this namespace's alone
rpcbind -f </dev/null >/dev/null 2>&1 &
rpcbind_pid=$!
trap 'ganesha_stop; kill $rpcbind_pid 2>/dev/null; cleanup' EXIT
for _ in $(seq 30); do rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && break; sleep 0.1; done
if ! "$IOMOON" list 2>/dev/null | grep -Eq '^  nfs +works'; then
	skip "engine nfs is not built (make deps installs libnfs-dev, then make)"
	done_testing
	exit 0
fi
if ! ganesha_start 3; then
	skip "$GANESHA_WHY"
	done_testing
	exit 0
fi
ok 0 "NFS-Ganesha serves NFSv3 and v4 in a namespace of its own, rpcbind beside it"
json() { python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(*eval(sys.argv[2]))' "$@"; }

"$IOMOON" run --format json "$N/write.lua" "$(nfs_url3 mem/w3.dat)" >w3.json 2>w3.err
is "$?:$(json w3.json 'p["engine"], p["bytes"], p["errors"]')" "0:nfs 1048576 0" \
	"1 MiB of the offset pattern written to a new file over version=3: exit 0, engine nfs"
nfs-cp "$(nfs_url mem/w3.dat)" w3.copy >/dev/null 2>&1
is "$(python3 - w3.copy <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
print(len(d), sum(1 for i in range(0, 1 << 20, 8) if struct.unpack_from("<Q", d, i)[0] != i))
PY
)" "2097152 0" "nfs-cp over NFSv4 reads it back: every 8-byte word of the first MiB its own offset"
# one 1 MiB write: over v3 one WRITE of 1 MiB (FSINFO's wtmax); over v4
# it would be 293 WRITEs of 3,584 bytes. Ganesha counts the WRITEs it
# served per version in its log at FULL_DEBUG only, so the test counts the
# bytes libnfs sent in one sendto: strace, when there is one
if command -v strace >/dev/null; then
	strace -f -e trace=sendto,sendmsg,writev,write -o st.txt "$IOMOON" quick --target "$(nfs_url3 mem/w3.dat)" \
		--bs 1m --read 0 --random 0 --ios 4 --quiet >/dev/null 2>&1
	big=$(grep -Eo '= [0-9]+$' st.txt | awk '$2 >= 1048576' | wc -l)
	ok "$([ "$big" -ge 4 ]; echo $?)" "a 1 MiB write over v3 leaves in one send of over 1 MiB ($big of the 4 writes)"
else
	skip "strace is missing: the size of one WRITE is not checked"
fi
frun() { "$IOMOON" run --format none --quiet "$N/files.lua" "$@" 2>&1 | grep -Ev '^(dir|first)' | tr '\t\n' '  '; }
is "$(frun "$(nfs_url3 mem/tree)" op=create qd=8):$(frun "$(nfs_url3 mem/tree)" op=read qd=8):$(frun "$(nfs_url3 mem/tree)" op=delete qd=8):$(frun "$(nfs_url3 mem/tree)" op=rmdir)" \
	"create 40 0 0 libnfs engine nfs 8 files 40 0 163840 0 :read 40 0 0 libnfs engine nfs 8 files 0 0 0 163840 :delete 40 0 0 libnfs engine nfs 8 files 0 40 0 0 :rmdir 2 0 0 libnfs engine nfs 1 files 0 0 0 0 " \
	"files phases over a v3 directory, qd 8 (OPENs in flight together: v3 has no open state): 2 dirs x 20 files created, read, deleted, their dirs removed"
is "$(nfs-ls "$(nfs_url mem/tree)" 2>/dev/null | wc -l)" 0 "nfs-ls: the tree is gone"
done_testing
