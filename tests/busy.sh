#!/bin/bash
# busy.sh COMMAND...: run COMMAND with a busy loop pinned on each CPU beside
# it (stress-ng --cpu 1 --taskset N, one per CPU), as a user's machine that
# is doing other work; the loops stop on every exit path. `make test-busy`
# runs the suite this way: every check must hold whatever the scheduler does.
set -u
[ $# -gt 0 ] || { echo "usage: busy.sh COMMAND..." >&2; exit 2; }
command -v stress-ng >/dev/null || { echo "busy.sh: stress-ng is missing (make deps installs it)" >&2; exit 2; }
pids=""
cmd=""
stop() { [ -n "$pids" ] && kill $pids 2>/dev/null; wait $pids 2>/dev/null; pids=""; }
# a signal to this script reaches the command too, and the loops stop
# then, not when the command would have ended (bash runs a trap only
# between commands: the command runs in the background, waited for)
fwd() { [ -n "$cmd" ] && kill -"$1" "$cmd" 2>/dev/null && wait "$cmd" 2>/dev/null; stop; exit "$2"; }
trap stop EXIT
trap 'fwd INT 130' INT
trap 'fwd TERM 143' TERM
n=$(nproc)
for c in $(seq 0 $((n - 1))); do
	stress-ng --cpu 1 --taskset "$c" --quiet --timeout 0 &
	pids="$pids $!"
done
echo "busy.sh: a busy loop pinned on each of $n CPUs (stress-ng, pids$pids)"
"$@" <&0 &
cmd=$!
wait "$cmd"
