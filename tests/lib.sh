# lib.sh - TAP helpers for the shell tests. Each test gets a private
# temporary directory ($TMP) that is removed when it ends; tests write
# nowhere else.
set -u
T=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$T")
IOMOON="${IOMOON_BIN:-$ROOT/iomoon}"   # make test-asan points this at the sanitized build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/iomoon-test.XXXXXX")
# verification states (genmap.h) go under $TMP too, never to /var/lib/iomoon
export IOMOON_STATE_DIR="$TMP/state"
LOOPS=""
MOUNTS=""   # mount points a test made: unmounted before its loop devices go
# umount_wait DIR: unmount, waiting up to 10 s while it is busy (io_uring
# lets go of a process's files only a moment after the process has exited).
umount_wait() {
	local i=0
	while mountpoint -q "$1" 2>/dev/null; do
		umount "$1" 2>/dev/null && return 0
		i=$((i + 1)); [ "$i" -ge 100 ] && { echo "# could not unmount $1" >&2; return 1; }
		sleep 0.1
	done
}
cleanup() {
	for m in $MOUNTS; do umount_wait "$m"; done
	for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
tap_n=0
tap_failed=0

ok() { # ok CONDITION-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_failed=$((tap_failed + 1)); fi
}
is() { # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got: '$1'"; echo "#  want: '$2'"; fi
}
like() { # like TEXT REGEX DESCRIPTION
	if printf '%s' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else ok 1 "$3"; echo "#   got: '$1'"; echo "#  want: /$2/"; fi
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # skip $1"; }
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }
# lua_tap SCRIPT ARGS...: run a Lua test script that prints its own TAP
# lines through tests/tap.lua, numbered after ours.
lua_tap() {
	local out rc
	out=$(TAP_START=$tap_n "$IOMOON" run --format none --quiet "$@" 2>"$TMP/lua_tap.err")
	rc=$?
	printf '%s\n' "$out" | grep -v '^1\.\.'
	tap_n=$(printf '%s\n' "$out" | grep -Ec '^(not )?ok ' | awk -v s="$tap_n" '{print s + $1}')
	tap_failed=$((tap_failed + $(printf '%s\n' "$out" | grep -c '^not ok ')))
	ok "$rc" "lua script $(basename "$1") ran to its end (exit $rc)"
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$TMP/lua_tap.err"
}
