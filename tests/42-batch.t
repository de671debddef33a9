#!/bin/bash
# test: timed (holds a measurement to a bound: make bench-timing runs it alone with IOMOON_TIMING=1)
# Submission batches: what the result says was handed over per submission
# and per reap, and what the kernel saw (system calls counted by strace).
. "$(dirname "$0")/lib.sh"

# sizes.lua ENGINE QD BATCH IOS [TARGET]: one phase, its submit and reap sizes
run_sizes() { "$IOMOON" run --format none --quiet "$LUA_DIR/sizes.lua" "$@" 2>&1; }

# null engine: queue() completes at once, so every turn has the whole queue ready
out=$(run_sizes null 32 none 32000 "")
is "$(sed -n 1p <<<"$out")" "auto 32" "null, no batch given: batch is auto, and the bound used is the whole queue (no system call to pace)"
is "$(sed -n 2p <<<"$out")" "1000 32000 32 32 0,0,0,0,0,1000" "null, auto: 1000 submissions of 32 I/Os (mean 32, all in the 32-63 bucket)"
is "$(sed -n 3p <<<"$out")" "1000 32000 32 32 0,0,0,0,0,1000" "null, auto: 1000 reaps of 32"
out=$(run_sizes null 32 1 32000 "")
is "$(sed -n 1p <<<"$out")" "1 1" "null, batch = 1: reported as 1, used 1"
is "$(sed -n 2p <<<"$out")" "32000 32000 1 1 32000" "null, batch = 1: one submission per I/O, exactly"
out=$(run_sizes null 32 8 32000 "")
is "$(sed -n 2p <<<"$out")" "4000 32000 8 8 0,0,0,4000" "null, batch = 8: the ready 32 go as 4 submissions of 8"
out=$(run_sizes null 32 5 32000 "")
is "$(sed -n 2p <<<"$out")" "7000 32000 4.57143 5 0,1000,6000" \
	"null, batch = 5: the ready 32 go as 6 submissions of 5 and the rest (2) at once, not held back to fill a batch"
# the sizes tables are sealed as the rest of a result: a misspelt field is an error
err=$("$IOMOON" run --format none --quiet "$LUA_DIR/seal.lua" 2>&1); rc=$?
is "$rc" 2 "a misspelt field of submit_sizes: exit 2"
like "$err" "result.submit_sizes: no field 'mena' \(did you mean 'mean'\?\)" "a misspelt field of submit_sizes is named, with the near one"

# sim: its submit() does nothing (every bound completes alike), so auto
# searches there as on a device: its first trial doubles the bound of 4
out=$(run_sizes sim 32 auto 64000 "")
like "$(sed -n 1p <<<"$out")" '^auto (1|2|4|8|16|32)$' "sim, batch = \"auto\": the bound used is a power of two up to the qd ($(sed -n 1p <<<"$out"))"
like "$(sed -n 2p <<<"$out")" '^[0-9]+ 64000 ' "sim, auto: the submissions carry exactly the 64000 I/Os of the quota"
ok $(awk 'NR == 2 { m = $4 } END { exit !(m >= 8) }' <<<"$out"; echo $?) "sim, auto: a bound of 8 or more was tried ($(sed -n 2p <<<"$out"))"
out=$(run_sizes sim 32 4 64000 "")
like "$(sed -n 2p <<<"$out")" '^[0-9]+ 64000 [0-9.]+ 4 ' "sim, batch = 4: never more than 4 in one submission ($(sed -n 2p <<<"$out"))"

# io_uring and libaio on a file of this test (O_DIRECT), under strace
F="$TMP/batch.dat"
"$IOMOON" quick --target "$F" --size 64m --engine null --ios 1 --quiet --format none
if ! command -v strace >/dev/null; then
	for i in $(seq 14); do skip "strace is not installed (make deps)"; done
else
	# calls ENGINE QD BATCH IOS SYSCALL: how many times the phase made SYSCALL
	calls() {
		strace -f -c -e trace="$5" -o "$TMP/strace.out" "$IOMOON" run --format none --quiet "$LUA_DIR/sizes.lua" \
			"$1" "$2" "$3" "$4" "$F" >"$TMP/run.out" 2>&1
		awk -v c="$5" '$NF == c { print $4 }' "$TMP/strace.out"
	}
	n=$(calls io_uring 32 1 4000 io_uring_enter)
	ok $([ "${n:-0}" -ge 4000 ] && echo 0 || echo 1) "io_uring, qd 32, batch = 1: at least one io_uring_enter per I/O ($n for 4000)"
	is "$(sed -n 2p "$TMP/run.out" | cut -d' ' -f1-4)" "4000 4000 1 1" "io_uring, batch = 1: the result says 4000 submissions of 1"
	n=$(calls io_uring 32 32 4000 io_uring_enter)
	ok $([ "${n:-99999}" -lt 2000 ] && echo 0 || echo 1) "io_uring, batch = 32: what is ready goes in one call (io_uring_enter $n times for 4000 I/Os)"
	ok $(awk 'NR == 2 { m = $3 } END { exit !(m > 2) }' "$TMP/run.out"; echo $?) "io_uring, batch = 32: more than 2 I/Os per submission on the mean ($(sed -n 2p "$TMP/run.out"))"
	n=$(calls io_uring 32 none 4000 io_uring_enter)
	is "$(sed -n 1p "$TMP/run.out" | cut -d' ' -f1)" "auto" "io_uring, no batch given: auto"
	ok $([ "${n:-99999}" -lt 3000 ] && echo 0 || echo 1) "io_uring, auto: fewer system calls than I/Os (io_uring_enter $n times for 4000 I/Os)"
	is "$(sed -n 2p "$TMP/run.out" | cut -d' ' -f2)" "4000" "io_uring, auto: the submissions carry exactly the 4000 I/Os"
	is "$(sed -n 3p "$TMP/run.out" | cut -d' ' -f2)" "4000" "io_uring, auto: the reaps return exactly the 4000 I/Os"
	n=$(calls libaio 32 1 4000 io_submit)
	ok $([ "${n:-0}" -ge 4000 ] && echo 0 || echo 1) "libaio, qd 32, batch = 1: one io_submit per I/O ($n for 4000)"
	n=$(calls libaio 32 none 4000 io_submit)
	ok $([ "${n:-99999}" -lt 3000 ] && echo 0 || echo 1) "libaio, auto: fewer io_submit calls than I/Os ($n for 4000)"
	ok $(awk 'NR == 2 { m = $3 } END { exit !(m > 1) }' "$TMP/run.out"; echo $?) "libaio, auto: more than one I/O per submission on the mean ($(sed -n 2p "$TMP/run.out"))"
	is "$(sed -n 2p "$TMP/run.out" | cut -d' ' -f1)" "$n" "libaio, auto: the submissions the result counts are the io_submit calls the kernel saw"
	n=$(calls io_uring 1 none 2000 io_uring_enter)
	is "$(sed -n 1p "$TMP/run.out")" "auto 1" "io_uring, qd 1, auto: the bound is 1 (nothing to batch)"
	ok $([ "${n:-99999}" -lt 3000 ] && echo 0 || echo 1) \
		"io_uring, qd 1: each I/O goes with the wait for it, one io_uring_enter per I/O, not two ($n for 2000)"
fi

# batch = 1: an I/O's submit_ns is read after the submissions that went
# before it in the same turn (each one a system call), not shared with them
read -r nrec distinct nreap < <("$IOMOON" run --format none --quiet "$LUA_DIR/stamps.lua" "$F" 2>&1)
ok $([ "${nrec:-0}" = 3000 ] && [ "${distinct:-0}" -ge 2700 ] && echo 0 || echo 1) \
	"io_uring, batch = 1: submit_ns read after each earlier submission ($distinct distinct of $nrec, $nreap reaps)"

# paced at light load under auto: a lone due I/O goes at once, alone (more
# go together only when a late wake-up on this shared machine made several
# due at once, so the test asks for most, not all)
out=$("$IOMOON" run --format none --quiet "$LUA_DIR/paced.lua" 2>&1)
like "$out" "^auto	mostly-alone	(4[0-9][0-9]|5[0-9][0-9])	" \
	"paced at light load, auto: about 500 submissions, most of one I/O (none waits for another: $out)"
done_testing
