#!/bin/bash
# The differential oracle's fixed sample (issue 42): eight random fio jobs
# (seeds 1..8: psync, libaio and io_uring, direct and buffered, bssplit,
# numjobs, number_ios, io_size, fdatasync) run by fio and `iomoon fio`, each
# on a loop device of its own, checked against each other, the kernel's
# block counts and the job file (tests/oracle/oracle says how). Fails on a
# difference doc/import.md's "Where iomoon and fio differ" does not name.
# Not in `make test` yet: run it as `prove -v tests/oracle/sample.t`.
: "${IOMOON_BIN:=$(cd "$(dirname "$0")/../.." && pwd)/iomoon}"
export IOMOON_BIN
. "$(dirname "$0")/../lib.sh"
ORACLE="$T/oracle"
if [ "$(id -u)" != 0 ] || ! command -v fio >/dev/null || ! command -v losetup >/dev/null; then
	skip "the oracle needs root, fio and losetup"
	done_testing
	exit
fi

# a seed reproduces its job exactly
a=$("$ORACLE" --seed 5 --count 1 --print-job)
b=$("$ORACLE" --seed 5 --count 1 --print-job)
is "$a" "$b" "a seed's job file is the same every time"
like "$a" "filename=\\\$\{ORACLE_DEV\}" "... one file for both tools, the device from the environment"

out=$(TMPDIR="$TMP" "$ORACLE" --seed 1 --count 8 --keep "$TMP/keep" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
is "$rc" 0 "the sample: no undocumented difference"
like "$(printf '%s\n' "$out" | tail -n 1)" "^oracle: 8 jobs, [0-9]+ differences, 0 undocumented$" "... its last line"
is "$(printf '%s\n' "$out" | grep -c '^seed [1-8]: ')" 8 "... one line a job"
is "$(ls "$TMP/keep" | wc -l)" 8 "... --keep: a directory a job"
[ -s "$TMP/keep/seed1/job.fio" ] && [ -s "$TMP/keep/seed1/fio.json" ] && [ -s "$TMP/keep/seed1/iomoon.json" ]
ok $? "... holding the job file and both tools' results"
is "$(losetup -j "$TMP" 2>/dev/null | wc -l)" 0 "... and no loop device left"
done_testing
