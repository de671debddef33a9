# lib.sh - TAP helpers for the shell tests. Each test gets a private
# temporary directory ($TMP) that is removed when it ends; tests write
# nowhere else.
set -u
T=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$T")
# the Lua scripts this test runs: tests/lua/NN-name/ for tests/NN-name.t
LUA_DIR="$T/lua/$(basename "$0" .t)"
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
# ours /dev/loopN: whether that loop device is still over a file of this
# test's (a test that detached it early leaves its name behind, and another
# test may have the same number by now: detach only what is ours)
ours() {
	case "$(cat "/sys/block/${1##*/}/loop/backing_file" 2>/dev/null)" in "$TMP"/*) return 0 ;; esac
	return 1
}
cleanup() {
	for m in $MOUNTS; do umount_wait "$m"; done
	for l in $LOOPS; do ours "$l" && losetup -d "$l" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
# Timing a run (tests of signals and stalls): secs, now in seconds;
# since T0, the seconds from T0 to now; under T MAX, 0 when T < MAX (MAX
# for the plain build: the sanitized one, several times slower per call
# and run two tests at a time, gets twice as long).
case "$IOMOON" in *asan*) SLOWER=2 ;; *) SLOWER=1 ;; esac
secs() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(secs)" 'BEGIN { printf "%.2f", b - a }'; }
under() { awk -v t="$1" -v m="$2" -v k="$SLOWER" 'BEGIN { exit !(t < m * k) }' && echo 0 || echo 1; }
# phase_of FILE KEY...: those fields of the first phase of a saved JSON run
phase_of() { python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(*[p.get(k) for k in sys.argv[2:]])' "$@"; }
# sigint_after SECONDS ARGS...: iomoon ARGS in the background (its stderr in
# $TMP/sig.err; killed at 8 s), SIGINT to it after SECONDS; sets rc and t
# (the seconds from the signal to its exit)
sigint_after() {
	local delay=$1 job t0
	shift
	timeout -k 1 8 "$IOMOON" "$@" >/dev/null 2>"$TMP/sig.err" &
	job=$!
	sleep "$delay"
	t0=$(secs)
	kill -INT "$(pgrep -P "$job")" # iomoon itself, not timeout (which would kill it 1 s later)
	wait "$job"
	rc=$?
	t=$(since "$t0")
}
# unit_test NAME DESCRIPTION: run the C unit test build/NAME (UNIT_DIR for
# the sanitized build), its lines shown as comments, as one test here
unit_test() {
	local u="$ROOT/${UNIT_DIR:-build}/$1" out rc
	if [ -x "$u" ]; then
		out=$("$u"); rc=$?
		printf '%s\n' "$out" | sed 's/^/#   /'
		ok "$rc" "$2: $(printf '%s\n' "$out" | grep -c '^ok') passed"
	else
		skip "$u not built (make $u)"
	fi
}
tap_n=0
tap_failed=0

ok() { # ok CONDITION-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_failed=$((tap_failed + 1)); return 1; fi
}
# unbusy: a report's text without the mark a busy machine puts on a row
# ("host busy: other processes held ... run again on a quiet host",
# result.bottleneck "host"; a Markdown Status cell of it reads "ok"): it
# says what the machine was doing, as a measurement does. is and like
# compare without it too, unless what they want mentions it.
unbusy() {
	sed -E 's/\| host busy: [^;|]*: run again on a quiet host \|/| ok |/g
		s/host busy: [^;|]*: run again on a quiet host; //g
		s/;? *host busy: [^;|]*: run again on a quiet host//g'
}
is() { # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ] || { case "$2" in *"host busy"*) false ;; *) [ "$(printf '%s\n' "$1" | unbusy)" = "$2" ] ;; esac; }; then
		ok 0 "$3"
	else ok 1 "$3"; echo "#   got: '$1'"; echo "#  want: '$2'"; return 1; fi
}
like() { # like TEXT REGEX DESCRIPTION
	if matches "$1" "$2" || { case "$2" in *"host busy"*) false ;; *) matches "$(printf '%s\n' "$1" | unbusy)" "$2" ;; esac; }; then
		ok 0 "$3"
	else ok 1 "$3"; echo "#   got: '$1'"; echo "#  want: /$2/"; return 1; fi
}
# matches TEXT REGEX: a line of TEXT matches the extended REGEX (grep -E);
# a REGEX of several lines matches them in order, on consecutive lines of
# TEXT, the last ending in a newline (grep would take each of its lines as
# a pattern of its own, and an empty one, as a trailing newline makes,
# matches anything)
matches() {
	case "$2" in
	*$'\n'*) printf '%s\n' "$1" | RE="$2" perl -0777 -ne 'exit(/$ENV{RE}/m ? 0 : 1)' ;;
	*) printf '%s' "$1" | grep -Eq -- "$2" ;;
	esac
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # skip $1"; }
# timed CHECK ARGS... DESCRIPTION: a check that holds a time or a rate to
# a bound (tests/tap.lua's timed_ok): `make bench` runs it (IOMOON_TIMING=1);
# `make test`, which a loaded machine runs too, skips it, naming it.
timed() {
	if [ "${IOMOON_TIMING:-}" = 1 ]; then "$@"; return; fi
	skip "timing, held by make bench: ${*: -1}"
}
# ran RC OUTPUT DESCRIPTION: a run that exits 0 passes; one that exited 1
# only because a phase of it completed no I/O in its measured time (a
# loaded machine can starve a 0.3 s phase; iomoon says so and fails the
# run, rightly) is skipped, saying so; anything else fails, showing OUTPUT.
ran() {
	if [ "$1" -eq 0 ]; then ok 0 "$3"; return 0; fi
	if [ "$1" -eq 1 ] && printf '%s\n' "$2" | grep -q 'no I/O completed in the measured time' &&
		! printf '%s\n' "$2" | grep -v 'no I/O completed in the measured time' | grep -q 'FAILED'; then
		skip "$3: a phase completed no I/O in its measured time (this machine starved it), and iomoon said so"
		return 1
	fi
	ok 1 "$3"; printf '%s\n' "$2" | sed 's/^/#   /'; return 1
}
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
