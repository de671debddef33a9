#!/bin/bash
# leftovers.sh DIR: after a run of the suite with TMPDIR=DIR, fail if the
# tests left anything of theirs behind: a mount or a loop device over a file
# under DIR, a process (nbdkit, tgtd, mpirun, iomoon) naming DIR, or a
# temporary directory. Removes DIR when it is clean.
set -u
dir=${1:?usage: leftovers.sh DIR}
bad=0
say() { echo "leftovers: $*" >&2; bad=1; }
while read -r _ mnt _; do
	case "$mnt" in "$dir"/*) say "still mounted: $mnt" ;; esac
done </proc/mounts
for f in /sys/block/loop*/loop/backing_file; do
	[ -r "$f" ] || continue
	case "$(cat "$f")" in "$dir"/*) say "loop device /dev/$(basename "$(dirname "$(dirname "$f")")") still over $(cat "$f")" ;; esac
done
for p in /proc/[0-9]*; do
	[ "${p#/proc/}" = "$$" ] && continue
	cmd=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
	case "$cmd" in *leftovers.sh*) continue ;; esac
	case "$cmd" in *"$dir"/*) say "process ${p#/proc/} still running: $cmd" ;; esac
done
left=$(find "$dir" -mindepth 1 -maxdepth 1 2>/dev/null | head -5)
[ -n "$left" ] && say "temporary files left: $(echo $left)"
[ "$bad" -eq 0 ] && rmdir "$dir"
exit "$bad"
