#!/bin/bash
# Engine iscsi against a real target: tgtd (Debian's tgt) serving LUNs backed
# by files in $TMP on 127.0.0.1, started here on a free port with a control
# port of its own, and torn down by the EXIT trap whatever happens. What
# iomoon writes through the engine is read back from the backing file (the
# offset pattern, word by word); crc32c finds a corruption made in the
# backing file between a writing and a verifying phase; trims punch the
# backing file of a thin-provisioned LUN and are refused on a thick one;
# the safety rules (allow_write, a filesystem on the LUN, a read-only LUN);
# a wrong IQN, LUN or port and a failed CHAP login are clear errors within
# seconds; a CHAP password never shows; a server killed mid-phase ends the
# phase (exit 1), never hangs.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

if ! command -v tgtd >/dev/null || ! command -v tgtadm >/dev/null; then
	echo "1..0 # skip tgtd/tgtadm not installed (Debian package tgt)"
	exit 0
fi
if ! "$IOMOON" list 2>&1 | grep -Eq '^ +iscsi +works'; then
	echo "1..0 # skip iomoon built without libiscsi"
	exit 0
fi

TGTD_PID=""
CPORT=""
stop_tgtd() { # ours only: by its pid and its control port
	[ -n "$TGTD_PID" ] || return 0
	for tid in 1 2 3 4 5 6; do # tgtd ends only when it has no targets
		tgtadm -C "$CPORT" --lld iscsi --op delete --mode target --tid $tid --force >/dev/null 2>&1
	done
	tgtadm -C "$CPORT" --op delete --mode system >/dev/null 2>&1
	for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$TGTD_PID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$TGTD_PID" 2>/dev/null
	rm -f "/var/run/tgtd/socket.$CPORT" "/var/run/tgtd/socket.$CPORT.lock"
	TGTD_PID=""
}
trap 'stop_tgtd; cleanup' EXIT

# tgtd on 127.0.0.1:PORT, a free port (tgtd runs on when it cannot bind
# its portal: the listening socket must be its own)
start_tgtd() {
	for _ in 1 2 3 4 5 6 7 8; do
		PORT=$((20000 + RANDOM % 20000))
		CPORT=$((20000 + RANDOM % 12000)) # tgtd takes at most 32767
		[ -e "/var/run/tgtd/socket.$CPORT" ] && continue
		# in a subshell: not a job of this shell, whose kill bash would report
		(tgtd -f -C "$CPORT" --iscsi "portal=127.0.0.1:$PORT" >"$TMP/tgtd.log" 2>&1 & echo $! >"$TMP/tgtd.pid")
		TGTD_PID=$(cat "$TMP/tgtd.pid")
		for _ in $(seq 30); do
			ss -ltnpH "sport = :$PORT" 2>/dev/null | grep -q "pid=$TGTD_PID," && return 0
			kill -0 "$TGTD_PID" 2>/dev/null || break
			sleep 0.1
		done
		stop_tgtd
	done
	return 1
}
if ! start_tgtd; then
	echo "1..0 # skip tgtd would not start on a free port"
	exit 0
fi
TA() { tgtadm -C "$CPORT" --lld iscsi "$@"; }
IQN=iqn.2026-11.org.example
# new_lun TID NAME SIZE [PARAMS]: a target with LUN 1 on $TMP/NAME.img, open to all
new_lun() {
	truncate -s "$3" "$TMP/$2.img"
	TA --op new --mode target --tid "$1" -T "$IQN:$2" &&
		TA --op new --mode logicalunit --tid "$1" --lun 1 -b "$TMP/$2.img" &&
		{ [ -z "${4:-}" ] || TA --op update --mode logicalunit --tid "$1" --lun 1 --params "$4"; } &&
		TA --op bind --mode target --tid "$1" -I ALL
}
new_lun 1 plain 64M && new_lun 2 thin 16M thin_provisioning=1 && new_lun 3 ro 16M readonly=1 &&
	new_lun 4 chap 16M && TA --op new --mode account --user alice --password 'Zq9-s3cret-Pw' &&
	TA --op bind --mode account --tid 4 --user alice &&
	mkfs.ext4 -q -F "$TMP/fs.img" 32M 2>/dev/null && new_lun 5 fs 32M &&
	new_lun 6 acl 16M && TA --op unbind --mode target --tid 6 -I ALL &&
	TA --op bind --mode target --tid 6 --initiator-name "$IQN:allowed-initiator"
ok $? "tgtd on 127.0.0.1:$PORT (control port $CPORT): six targets set up"
P="iscsi://127.0.0.1:$PORT/$IQN"
# every run in a minute at most: a hang fails a test (status 124), never the suite
iom() { timeout 60 "$IOMOON" "$@"; }

run_lua() { # run_lua NAME ARGS...: tests/lua/49-iscsi/NAME.lua, run with ARGS
	local name=$1
	shift
	iom run --format none --quiet "$LUA_DIR/$name.lua" "$@"
}

out=$(iom list 2>&1)
like "$out" "iscsi +works" "iomoon list: iscsi works"

# ---- reads, and writes that land in the backing file ----
out=$(iom quick --target "$P:plain/1" --qd 8 --time 0.5 --format json --quiet 2>&1)
like "$out" '"errors": 0,' "4k random reads, qd 8: no errors"
like "$out" "\"path\": \"$P:plain/1\"" "the result names the LUN by its URL"
t0=$(secs)
iom quick --target "$P:plain/1" --qd 1 --time 1 --quiet --format none
rc=$?
t=$(since "$t0")
is "$rc" 0 "a 1 s phase at qd 1 runs (exit 0)"
ok $(awk -v t="$t" 'BEGIN { exit !(t < 8) }' && echo 0 || echo 1) "and ends on time ($t s): the last I/Os drain"

out=$(run_lua write-offsets "$P:plain/1" 2>&1)
is "$out" "$(printf '64\t0\tiscsi')" "4 MiB of 64k sequential writes, pattern offset: 64 writes, no errors"
out=$(python3 -c "
import struct, sys
d = open('$TMP/plain.img', 'rb').read(4 << 20)
bad = [o for o in range(0, len(d), 8) if struct.unpack_from('<Q', d, o)[0] != o]
rest = open('$TMP/plain.img', 'rb').read()[4 << 20:(4 << 20) + 65536]
print(len(bad), 'rest-zero' if rest == bytes(len(rest)) else 'rest-written')")
is "$out" "0 rest-zero" "the backing file holds every 8-byte word = its offset in the 4 MiB written, nothing beyond"

out=$(run_lua read-verify "$P:plain/1" 2>&1)
is "$out" "$(printf '2000\t0')" "2000 random reads of that region, verify = offset: no errors"

out=$(run_lua workers "$P:plain/1" 2>&1)
is "$out" "$(printf '4\t0\ttrue')" "4 workers (4 sessions of one initiator), qd 8 each: I/O, no errors"

# ---- fio's libiscsi.fio as it is (no size=, no rw=): the LUN read once whole, its size the LUN's ----
printf '[iscsi]\nioengine=libiscsi\nfilename=iscsi\\://127.0.0.1\\:%s/%s\\:ro/1\n' "$PORT" "$IQN" >libiscsi.fio
iom fio libiscsi.fio --quiet --format json --output li.json 2>li.err
is "$?:$(python3 -c 'import json; p=json.load(open("li.json"))["phases"][0]; print(p["ios"], p["bytes"], p["read_ios"] if "read_ios" in p else p["read"]["ios"])' 2>&1)" \
	"0:4096 16777216 4096" "fio's libiscsi.fio without size=: the 16 MiB LUN read once, 4096 reads of 4k (its size read from the LUN)"

# ---- crc32c: a corruption made in the backing file is found ----
out=$(run_lua crc32c-write "$P:plain/1" 2>&1)
is "$out" "$(printf '128\t0')" "crc32c: 2 MiB written at 8 MiB, no errors"
out=$(run_lua crc32c-verify "$P:plain/1" 2>&1)
is "$out" "$(printf '128\t0\tnil')" "crc32c: read back whole, no errors"
printf 'CORRUPTION' | dd of="$TMP/plain.img" bs=1 seek=$((8 * 1048576 + 700000)) conv=notrunc status=none
out=$(run_lua crc32c-verify "$P:plain/1" 2>&1)
rc=$?
is "$rc" 1 "crc32c: after 10 bytes of the backing file are overwritten, the verifying phase exits 1"
like "$out" "$(printf '^128\t1\t1')" "crc32c: one error, counted as corrupt"

# ---- streams, pacing, intervals and a replay, as on a file ----
out=$(run_lua streams-replay "$P:plain/1" 2>&1)
is "$out" "$(printf '0\ttrue\ttrue\t4\t0\t100\t50')" \
	"two streams (reads; writes paced at 400 IOPS), 4 intervals; a 150-record iolog replayed: 100 reads, 50 writes"

# ---- syncs: SYNCHRONIZE CACHE 16, which tgtd turns into fdatasync(2) of the backing file ----
if command -v strace >/dev/null; then
	strace -f -p "$TGTD_PID" -e trace=fdatasync,fsync -o "$TMP/tgtd.strace" 2>/dev/null &
	spid=$!
	sleep 0.5
	out=$(run_lua fsync "$P:plain/1" 2>&1)
	sleep 0.3
	kill "$spid"
	wait "$spid" 2>/dev/null
	is "$out" "$(printf '120\t30\t0')" "fsync = 4: 120 writes, 30 syncs, no errors"
	is "$(grep -Ec 'f(data)?sync\(' "$TMP/tgtd.strace")" 30 "and tgtd synced the backing file 30 times"
else
	skip "strace not installed"
	skip "strace not installed"
fi

# ---- a SCSI error as an errno: a LUN made read-only mid-phase fails writes with EROFS ----
(sleep 0.7; TA --op update --mode logicalunit --tid 1 --lun 1 --params readonly=1) &
out=$(iom quick --target "$P:plain/1" --read 0 --allow-write --qd 4 --time 2 --quiet --format json 2>&1)
rc=$?
wait
TA --op update --mode logicalunit --tid 1 --lun 1 --params readonly=0
is "$rc" 1 "the LUN made read-only 0.7 s into a writing phase: exit 1"
out=$(printf '%s' "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["phases"][0]["errors_by_errno"])')
like "$out" "^\\{'EROFS': [1-4]\\}$" "its writes fail with EROFS (DATA PROTECT), and only those"

# ---- sync = "dsync" on a LUN: every WRITE(16) with FUA, which tgtd takes ----
out=$(timeout 60 "$IOMOON" run --format json --quiet "$LUA_DIR/dsync.lua" "$P:plain/1" 2>&1)
is "$?" 0 "sync = dsync through iscsi (FUA on every write): exit 0"
is "$(printf '%s' "$out" | python3 -c 'import json, sys; p = json.load(sys.stdin)["phases"][0]; print(p["write"]["ios"], p["errors"], p["open_sync"])' 2>&1)" \
	"20 0 dsync" "  20 writes, no error"

# ---- trims ----
dd if=/dev/urandom of="$TMP/thin.img" bs=1M count=4 conv=notrunc status=none
before=$(du -k "$TMP/thin.img" | cut -f1)
out=$(run_lua trim "$P:thin/1" 2>&1)
is "$out" "$(printf '32\t2097152\t0')" "thin LUN: 2 MiB trimmed in 32 UNMAPs, no errors"
out=$(python3 -c "
d = open('$TMP/thin.img', 'rb').read(4 << 20)
print('zero' if d[:2 << 20] == bytes(2 << 20) else 'data', 'zero' if d[2 << 20:] == bytes(2 << 20) else 'data')")
after=$(du -k "$TMP/thin.img" | cut -f1)
is "$out" "zero data" "thin LUN: the trimmed 2 MiB of the backing file read zeros, the next 2 MiB still hold data"
ok $((after <= before - 2048 ? 0 : 1)) "thin LUN: the backing file gave back its blocks ($before KiB -> $after KiB)"
md5=$(md5sum <"$TMP/plain.img")
out=$(run_lua trim-thick "$P:plain/1" 2>&1)
rc=$?
is "$rc" 2 "thick LUN: a phase that trims is refused, exit 2"
like "$out" "does not offer trim" "thick LUN: the message says the server does not offer trim"
is "$(md5sum <"$TMP/plain.img")" "$md5" "thick LUN: the backing file is unchanged"

# ---- safety ----
out=$(iom quick --target "$P:plain/1" --read 0 --time 0.3 --quiet 2>&1)
rc=$?
is "$rc" 2 "a write without allow_write is refused, exit 2"
like "$out" "allow_write" "the message says allow_write"
is "$(md5sum <"$TMP/plain.img")" "$md5" "and the backing file is unchanged"

md5=$(md5sum <"$TMP/fs.img")
out=$(iom quick --target "$P:fs/1" --read 0 --allow-write --time 0.3 --quiet 2>&1)
rc=$?
is "$rc" 2 "a LUN holding ext4: writing with allow_write but not force is refused, exit 2"
like "$out" "ext4" "the message names the ext4 signature"
is "$(md5sum <"$TMP/fs.img")" "$md5" "and the backing file is unchanged"
iom quick --target "$P:fs/1" --read 0 --allow-write --force --ios 50 --quiet --format none 2>&1
is "$?" 0 "with force it writes (exit 0)"
ok $([ "$(md5sum <"$TMP/fs.img")" != "$md5" ] && echo 0 || echo 1) "and the backing file changed"

md5=$(md5sum <"$TMP/ro.img")
out=$(iom quick --target "$P:ro/1" --read 0 --allow-write --force --time 0.3 --quiet 2>&1)
rc=$?
is "$rc" 2 "a read-only LUN is refused for writing, exit 2"
like "$out" "read-only" "the message says read-only"
is "$(md5sum <"$TMP/ro.img")" "$md5" "and the backing file is unchanged"
iom quick --target "$P:ro/1" --ios 100 --quiet --format none 2>&1
is "$?" 0 "a read-only LUN reads (exit 0)"

# ---- errors: clear, within seconds ----
t0=$(secs)
out=$(iom quick --target "$P:nosuch/1" --time 0.3 --quiet 2>&1)
rc=$?
is "$rc" 1 "a wrong IQN: exit 1 ($(since "$t0") s)"
like "$out" "Target not found" "a wrong IQN: the target's words"
t0=$(secs)
out=$(iom quick --target "$P:plain/7" --time 0.3 --quiet 2>&1)
rc=$?
is "$rc" 1 "a wrong LUN: exit 1 ($(since "$t0") s)"
like "$out" "has no LUN 7" "a wrong LUN: the message says there is no LUN 7"
like "$out" "^iomoon quick: --target: iscsi://[^ ]*:plain/7: the target has no LUN 7$" \
	"a wrong LUN: the message names --target, the option that gave it (not phase.target.path)"
t0=$(secs)
out=$(iom quick --target "iscsi://127.0.0.1:$((PORT + 1))/$IQN:plain/1" --time 0.3 --quiet 2>&1)
rc=$?
is "$rc" 1 "a port nothing listens on: exit 1 ($(since "$t0") s)"
like "$out" "Connection refused" "a port nothing listens on: connection refused"
ok $(awk -v t="$(since "$t0")" 'BEGIN { exit !(t < 5) }' && echo 0 || echo 1) "and it said so within 5 s"
for u in "iscsi://127.0.0.1:$PORT/$IQN:plain" "iscsi://127.0.0.1:$PORT/$IQN:plain/x" "iscsi:///$IQN:plain/1"; do
	out=$(iom quick --target "$u" --time 0.3 --quiet 2>&1)
	rc=$?
	is "$rc" 2 "a malformed URL ($u): exit 2"
	like "$out" "not an iSCSI URL" "  the message gives the URL's form"
done
out=$(iom quick --target "$P:plain/1?target_user=bob&target_password=Hush-77" --time 0.3 --quiet 2>&1)
rc=$?
is "$rc" 2 "a target password in the URL's query: exit 2"
ok $(printf '%s' "$out" | grep -q Hush-77 && echo 1 || echo 0) "  and the message does not show it"

# ---- CHAP ----
iom quick --target "iscsi://alice%Zq9-s3cret-Pw@127.0.0.1:$PORT/$IQN:chap/1" --ios 200 \
	--format json --output "$TMP/chap.json" >"$TMP/chap.out" 2>"$TMP/chap.err"
is "$?" 0 "CHAP: the password in the URL logs in (exit 0)"
is "$(cat "$TMP/chap.json" "$TMP/chap.out" "$TMP/chap.err" | grep -c 'Zq9-s3cret-Pw')" 0 \
	"CHAP: the password is nowhere in the JSON report, stdout or stderr"
like "$(cat "$TMP/chap.json")" "iscsi://alice@127.0.0.1:$PORT/$IQN:chap/1" "CHAP: the report names the LUN without it"
LIBISCSI_CHAP_USERNAME=alice LIBISCSI_CHAP_PASSWORD=Zq9-s3cret-Pw iom quick --target "$P:chap/1" --ios 100 \
	--quiet --format none 2>&1
is "$?" 0 "CHAP: LIBISCSI_CHAP_USERNAME and LIBISCSI_CHAP_PASSWORD log in"
# a scheme in upper case is the same URL (RFC 3986): it logs in, and shows no password either
iom quick --target "ISCSI://alice%Zq9-s3cret-Pw@127.0.0.1:$PORT/$IQN:chap/1" --ios 200 \
	--format json --output "$TMP/chap2.json" >"$TMP/chap2.out" 2>"$TMP/chap2.err"
is "$?:$(cat "$TMP/chap2.json" "$TMP/chap2.out" "$TMP/chap2.err" | grep -c 'Zq9-s3cret-Pw')" "0:0" \
	"CHAP: ISCSI://alice%PASSWORD@...: logs in (exit 0), the password nowhere"
like "$(cat "$TMP/chap2.json")" "\"target\": \"iscsi://alice@127.0.0.1:$PORT/$IQN:chap/1\"" "  the report names it in lower case"
# the password out of the command line (ps): the user in the URL, the password in the environment
LIBISCSI_CHAP_PASSWORD=Zq9-s3cret-Pw iom quick --target "iscsi://alice@127.0.0.1:$PORT/$IQN:chap/1" --ios 100 \
	--quiet --format none 2>&1
is "$?" 0 "CHAP: iscsi://alice@... with LIBISCSI_CHAP_PASSWORD logs in (doc/cli.md, Passwords)"
out=$(iom quick --target "iscsi://alice%Wrong-Pw-42@127.0.0.1:$PORT/$IQN:chap/1" --time 0.3 --quiet 2>&1)
rc=$?
is "$rc" 1 "CHAP: a wrong password is exit 1"
like "$out" "Authentication failure" "CHAP: the message says the login failed"
ok $(printf '%s' "$out" | grep -q 'Wrong-Pw-42' && echo 1 || echo 0) "CHAP: and does not show the password"
out=$(iom quick --target "$P:chap/1" --time 0.3 --quiet 2>&1)
is "$?" 1 "CHAP: no credentials is exit 1"

# ---- the initiator's name ----
out=$(iom quick --target "$P:acl/1" --time 0.3 --quiet 2>&1)
is "$?" 1 "a target open to one initiator name refuses the default name (exit 1)"
IOMOON_ISCSI_INITIATOR="$IQN:allowed-initiator" iom quick --target "$P:acl/1" --ios 100 --quiet --format none 2>&1
is "$?" 0 "IOMOON_ISCSI_INITIATOR names the initiator: the same target lets it in"

# ---- a target that stalls (tgtd stopped with SIGSTOP) holds neither a stop
# nor a phase's end: what is in flight 250 ms after it is abandoned with the
# session (no logout), and not counted (before: the worker waited for it,
# up to the 30 s I/O timeout). Every run is killed at 8 s ----
(sleep 0.6; kill -STOP "$TGTD_PID") &
t0=$(secs)
timeout -k 1 8 "$IOMOON" quick --target "$P:plain/1" --qd 4 --time 1 --format json --output "$TMP/end.json" \
	--quiet >/dev/null 2>"$TMP/end.err"
rc=$?
t=$(since "$t0")
wait
kill -CONT "$TGTD_PID"
is "$rc" 0 "tgtd stopped 0.6 s into a 1 s phase: exit 0"
ok "$(under "$t" 3)" "  it took $t s in all (< 3: log-in, the 1 s phase, 250 ms for the reads in flight)"
is "$(phase_of "$TMP/end.json" errors failed interrupted)" "0 False False" "  no error, neither failed nor interrupted"
out=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(p["ios"] > 0, p["ios"] == p["read"]["ios"])' "$TMP/end.json")
is "$out" "True True" "  only what completed before the stall counts (the reads in flight since are abandoned: no error)"
is "$(cat "$TMP/end.err")" "" "  nothing on stderr"

(sleep 1; kill -STOP "$TGTD_PID") &
sigint_after 2 quick --target "$P:plain/1" --qd 4 --time 10 --format json --output "$TMP/sig.json" --quiet
wait
kill -CONT "$TGTD_PID"
is "$rc" 1 "SIGINT 2 s into a phase, tgtd stopped since 1 s: exit 1 (interrupted)"
ok "$(under "$t" 3)" "  iomoon exited $t s after the signal (< 3, in a 10 s phase: the reads in flight abandoned, not waited for)"
is "$(phase_of "$TMP/sig.json" interrupted failed errors)" "True False 0" "  the report says interrupted, not failed, no error"
is "$(cat "$TMP/sig.err")" "iomoon quick: interrupted: the partial report (1 phase) is in $TMP/sig.json" \
	"  on stderr only where the report went (under ASan: no leak, no use of a freed buffer)"

# logging in to a target that answers nothing: SIGINT ends it at once
kill -STOP "$TGTD_PID"
sigint_after 1 quick --target "$P:plain/1" --time 1 --quiet
kill -CONT "$TGTD_PID"
is "$rc" 1 "SIGINT while logging in to a target that answers nothing: exit 1"
ok "$(under "$t" 3)" "  it exited $t s after the signal (< 3; the login timeout is 10 s)"
like "$(cat "$TMP/sig.err")" "interrupted \\(connecting and logging in\\)" "  and says the login was interrupted"

# ---- a server that stops answering (SIGSTOP): the I/O timeout
# (IOMOON_NET_IO_TIMEOUT, 2 s here) fails the phase, well before its end ----
(sleep 1; kill -STOP "$TGTD_PID") &
t0=$(secs)
out=$(IOMOON_NET_IO_TIMEOUT=2 iom quick --target "$P:plain/1" --qd 4 --time 6 --quiet 2>&1)
rc=$?
t=$(since "$t0")
kill -CONT "$TGTD_PID"
is "$rc" 1 "tgtd stopped 1 s into a 6 s phase: exit 1 (not 124, a hang), after $t s"
ok $(awk -v t="$t" 'BEGIN { exit !(t < 12) }' && echo 0 || echo 1) "it ended within seconds of the I/O timeout"
like "$out" "engine iscsi: Connection timed out" "it says the I/O timed out"

# ---- a server killed mid-phase: an error, not a hang ----
t0=$(secs)
timeout 60 "$IOMOON" quick --target "$P:plain/1" --qd 8 --time 5s --format json --output "$TMP/kill.json" \
	>/dev/null 2>"$TMP/kill.err" &
pid=$!
sleep 1.5
kill -9 "$TGTD_PID"
wait "$pid"
rc=$?
t=$(since "$t0")
is "$rc" 1 "tgtd killed 1.5 s into a 5 s phase: exit 1 (not timeout's 124), after $t s"
ok $(awk -v t="$t" 'BEGIN { exit !(t < 5) }' && echo 0 || echo 1) "the phase ended at once, not at its 5 s"
like "$(cat "$TMP/kill.json")" '"ENOTCONN"' "its errors are ENOTCONN (the connection closed)"
stop_tgtd

done_testing
