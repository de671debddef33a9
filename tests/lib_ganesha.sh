# lib_ganesha.sh - an NFS server for a test: NFS-Ganesha in user space with
# the memory FSAL (Debian's nfs-ganesha, nfs-ganesha-mem), NFSv4 only, on
# 127.0.0.1 and a port of its own, no rpcbind; its configuration, log,
# pid and recovery files under $TMP. Source after lib.sh:
#
#   ganesha_start || { skip "..."; done_testing; exit 0; }
#   url=$(nfs_url mem/f.dat)      # nfs://127.0.0.1/mem/f.dat?version=4&nfsport=PORT
#
# `ganesha_start 3` serves NFSv3 too (Protocols = 3, 4, MOUNT on a port of
# its own; nfs_url3 names a v3 URL with nfsport and mountport, so libnfs
# asks no portmapper): Ganesha 4.3 registers v3 and MOUNT with rpcbind or
# exits, so the caller provides one (52-nfs3.t: in a namespace of its own).
#
# Two exports: /mem (read-write) and /ro (Access_Type = RO). The memory
# FSAL keeps the first Inode_Size bytes of each file (2 MiB, its largest)
# and reads 'a' past them: data checks stay inside a file's first 2 MiB.
# The server is stopped on every exit path (ganesha_stop runs from the
# EXIT trap before lib.sh's cleanup). ganesha_start needs root (it binds
# and runs as the server's own user); GANESHA_WHY says why it failed.
GANESHA_PID=""
GANESHA_PORT=""
GANESHA_WHY=""
GANESHA_DIR="$TMP/ganesha"
GANESHA_MNT_PORT=""

ganesha_stop() {
	if [ -n "$GANESHA_PID" ]; then
		kill "$GANESHA_PID" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$GANESHA_PID" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$GANESHA_PID" 2>/dev/null
	fi
	GANESHA_PID=""
}
ganesha_cleanup() {
	ganesha_stop
	cleanup
}
trap ganesha_cleanup EXIT

nfs_url() { echo "nfs://127.0.0.1/$1?version=4&nfsport=$GANESHA_PORT"; }
nfs_url3() { echo "nfs://127.0.0.1/$1?version=3&nfsport=$GANESHA_PORT&mountport=$GANESHA_MNT_PORT"; }

# A free TCP port on 127.0.0.1 above 20000.
ganesha_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ganesha_start [3]: NFSv4 only, or NFSv3 and v4 (a portmapper needed)
ganesha_start() {
	local plugins protos=4
	[ "${1:-}" = 3 ] && protos="3, 4"
	command -v ganesha.nfsd >/dev/null || { GANESHA_WHY="ganesha.nfsd is missing (make deps installs nfs-ganesha)"; return 1; }
	command -v nfs-cp >/dev/null || { GANESHA_WHY="nfs-cp is missing (make deps installs libnfs-utils)"; return 1; }
	plugins=$(dirname "$(ls /usr/lib/*/ganesha/libfsalmem.so /usr/lib*/ganesha/libfsalmem.so 2>/dev/null | head -1)")
	[ "$plugins" != . ] || { GANESHA_WHY="the memory FSAL is missing (make deps installs nfs-ganesha-mem)"; return 1; }
	[ "$(id -u)" = 0 ] || { GANESHA_WHY="NFS-Ganesha runs as root here (these tests are not root)"; return 1; }
	mkdir -p "$GANESHA_DIR/recovery"
	GANESHA_PORT=$(ganesha_free_port)
	GANESHA_MNT_PORT=$(ganesha_free_port)
	cat >"$GANESHA_DIR/ganesha.conf" <<EOF
NFS_CORE_PARAM {
	Protocols = $protos;
	NFS_Port = $GANESHA_PORT;
	MNT_Port = $GANESHA_MNT_PORT;
	Enable_UDP = false;
	Bind_addr = 127.0.0.1;
	Enable_NLM = false;
	Enable_RQUOTA = false;
	Plugins_Dir = $plugins;
}
NFSV4 { Graceless = true; RecoveryBackend = fs; RecoveryRoot = $GANESHA_DIR/recovery; }
NFS_KRB5 { Active_krb5 = false; }
EXPORT_DEFAULTS { Squash = No_Root_Squash; SecType = sys; }
EXPORT { Export_ID = 1; Path = /mem; Pseudo = /mem; Access_Type = RW; Protocols = $protos; FSAL { Name = MEM; } }
EXPORT { Export_ID = 2; Path = /ro; Pseudo = /ro; Access_Type = RO; Protocols = $protos; FSAL { Name = MEM; } }
MEM { Inode_Size = 2097152; }
LOG { Default_Log_Level = EVENT; }
EOF
	ganesha.nfsd -F -f "$GANESHA_DIR/ganesha.conf" -L "$GANESHA_DIR/ganesha.log" -p "$GANESHA_DIR/ganesha.pid" \
		</dev/null >/dev/null 2>&1 &
	GANESHA_PID=$!
	disown "$GANESHA_PID" # no "Killed" notice from bash when a test kills it
	# serving once nfs-cp can write a file through it (a few seconds at most)
	printf 'iomoon' >"$GANESHA_DIR/probe"
	for _ in $(seq 50); do
		kill -0 "$GANESHA_PID" 2>/dev/null || break
		nfs-cp "$GANESHA_DIR/probe" "$(nfs_url mem/.probe)" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	GANESHA_WHY="NFS-Ganesha did not serve on 127.0.0.1:$GANESHA_PORT ($(grep -E 'FATAL|CRIT :Config|MAJ :Cannot register' "$GANESHA_DIR/ganesha.log" 2>/dev/null | head -1))"
	ganesha_stop
	return 1
}
