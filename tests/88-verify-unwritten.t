#!/bin/bash
# crc32c verification of units never written (issue 24, item 2): a file of
# 64 MiB of which 8 MiB were written with verification is read back whole.
# The 56 MiB never written hold the file's fill (fill.h), zeros, or
# something else: the fill and zeros are counted as never written (blank),
# anything else is `unexpected` (an error, exit 1) unless the phase says
# skip_unwritten. Every result says how many units it checked, how many
# were never written or skipped, and where the written area ends; every
# report format shows it. Also: an interrupted write, the fill kinds, an
# intact header where nothing was written, bad input, and the counts summed
# over MPI ranks.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
run() { "$IOMOON" run --format none --quiet "$@"; }
# write.lua PATH [FILL]: a 64 MiB file made by iomoon, its first 8 MiB written with verification
# verify.lua PATH [skip]: verify_only over the whole file, on_error = "continue"
v() { run "$LUA_DIR/verify.lua" "$@" >v.out; echo "exit $?"; }
garbage() { dd status=none conv=notrunc if=/dev/urandom of="$1" bs=1M seek="$2" count="${3:-1}"; }

# ---- the issue's reproduction ----
run "$LUA_DIR/write.lua" t.dat; ok $? "64 MiB made by iomoon, 8 MiB of it written with verify = crc32c"
is "$(v t.dat) $(head -1 v.out)" "$(printf 'exit 0 16384\t0\t0\t2048\t14336\t0\t0\t4096\t8388608')" \
	"before any damage: 2048 units checked, 14336 never written and blank (the fill), the written area ends at 8 MiB, exit 0"
garbage t.dat 40
is "$(v t.dat) $(head -1 v.out)" "$(printf 'exit 1 16384\t256\t256\t2048\t14080\t256\t0\t4096\t8388608')" \
	"1 MiB of garbage at 40 MiB: 256 unexpected errors (every unit of it), exit 1"
read -r kind at <<<"$(sed -n 2p v.out)"
ok "$([ "$kind" = unexpected ] && [ "$at" -ge $((40 << 20)) ] && [ "$at" -lt $((41 << 20)) ]; echo $?)" \
	"the first error: unexpected, at a unit of the garbage ($kind at $at; qd 4: any of the first to complete)"
like "$(sed -n 3p v.out)" "unexpected: the unit at $at was never written with verification, yet holds neither zeros nor this file's fill .*skip_unwritten = true leaves never-written units unread" \
	"its message says what was found and how to leave such units out"
out=$("$IOMOON" run --quiet "$LUA_DIR/stop.lua"); rc=$?
is "$rc" 1 "the reproduction as the issue ran it (on_error stop, the table report): exit 1"
like "$out" "phase 1 .* 1 error \(read of 4096 bytes at offset 41943040: unexpected: .*\); verified 2048 units of 4 KiB, 8192 never written \(blank\), 1 never written but not blank \(unexpected\), written area ends at 8 MiB" \
	"the table's row names the unexpected error and what was verified"
is "$(v t.dat skip) $(head -1 v.out)" "$(printf 'exit 0 16384\t0\t0\t2048\t0\t0\t14336\t4096\t8388608')" \
	"skip_unwritten = true: 0 errors, exit 0, the 14336 never-written units skipped"

# ---- every report format shows the counts ----
rm -f t.dat
run "$LUA_DIR/write.lua" t.dat
line='verified 2048 units of 4 KiB, 14336 never written \(blank\), written area ends at 8 MiB'
like "$("$IOMOON" run --quiet "$LUA_DIR/check.lua")" "check .*  $line" "table: $line"
csv=$("$IOMOON" run --quiet --format csv "$LUA_DIR/check.lua")
is "$(printf '%s\n' "$csv" | head -1 | tr -d '\r' | grep -o '"Units Checked","Units Never Written","Units Unexpected","Units Skipped","Unit Bytes","Written End Bytes"$')" \
	'"Units Checked","Units Never Written","Units Unexpected","Units Skipped","Unit Bytes","Written End Bytes"' "CSV: the verify columns last"
like "$(printf '%s\n' "$csv" | sed -n 2p | tr -d '\r')" '"2048","14336","0","0","4096","8388608"$' "CSV: their values"
"$IOMOON" run --quiet --format json --output r.json "$LUA_DIR/check.lua"; ok $? "JSON written"
is "$(tr -d ' \n' <r.json | grep -o '"verify":{[^}]*}')" \
	'"verify":{"skip_unwritten":false,"unit_bytes":4096,"units_checked":2048,"units_skipped":0,"units_unexpected":0,"units_unwritten":14336,"written_end_bytes":8388608}' \
	"JSON: result.verify with every count"
md=$("$IOMOON" run --quiet --format markdown "$LUA_DIR/check.lua")
like "$(printf '%s\n' "$md" | grep '^|' | head -1)" '\| Status \| Verified \|$' "markdown: a Verified column"
like "$(printf '%s\n' "$md" | grep '^|' | sed -n 3p)" "^\| check \| .* \| ok \| $line \|$" "markdown: the row says it"
"$IOMOON" run --quiet --format html --output r.html "$LUA_DIR/check.lua"
like "$(grep -o '<th class="n">Verified</th>' r.html)$(grep -o '<td class="n verify">[^<]*' r.html)" \
	"Verified</th><td class=\"n verify\">$line" "HTML: the summary's Verified column"
like "$("$IOMOON" report r.json)" "check .*  $line" "iomoon report of the saved JSON: the same line"
like "$("$IOMOON" report r.json --format csv | sed -n 2p | tr -d '\r')" '"2048","14336","0","0","4096","8388608"$' \
	"iomoon report --format csv of it: the same values"
like "$("$IOMOON" report r.json --format html | grep -o '<td class="n verify">[^<]*')" "$line" \
	"iomoon report --format html of it: the same cell"
sed 's/"units_checked": 2048/"units_checked": -1/' r.json >bad.json
err=$("$IOMOON" report bad.json 2>&1); is $? 2 "a saved result with a negative unit count: exit 2"
like "$err" "phases\[1\]\.verify\.units_checked is -1 \(a whole number of 0 or more is needed\)" "naming the field"
is "$("$IOMOON" run --quiet --format csv "$LUA_DIR/plain.lua" | head -1 | grep -c 'Units')" 0 "a phase that does not verify: no verify columns"
is "$(run "$LUA_DIR/field.lua")" "nil" "nor result.verify"

# ---- an interrupted write: the written area ends where it stopped ----
run "$LUA_DIR/made.lua"; touch -d '2000-01-01' i.dat; t0=$(stat -c %Y i.dat)
"$IOMOON" run --format none --quiet "$LUA_DIR/slow.lua" & pid=$!
# once its first write has landed (the file's mtime moves), half a second more
for _ in $(seq 200); do [ "$(stat -c %Y i.dat)" != "$t0" ] && break; sleep 0.1; done
sleep 0.5; kill -INT $pid; wait $pid
v i.dat >/dev/null
read -r ios errs _ checked unwritten unexpected skipped unit wend <<<"$(head -1 v.out)"
ok "$([ "$checked" -ge 16 ] && [ "$checked" -lt 16384 ] && [ $((checked * 4096)) = "$wend" ] &&
	[ $((checked + unwritten)) = 16384 ] && [ "$errs$unexpected$skipped" = 000 ]; echo $?)" \
	"a write stopped by SIGINT after $wend bytes: $checked units checked, the $unwritten after them never written, 0 errors"
garbage i.dat 60
v i.dat >/dev/null
is "$(cut -f2,3 v.out | head -1)" "$(printf '256\t256')" "garbage past where it stopped: 256 unexpected"

# ---- streams: each says whether it skipped; the phase only when all did ----
run "$LUA_DIR/write.lua" sr.dat; garbage sr.dat 40
is "$(run "$LUA_DIR/streams.lua" | tr '\t\n' '  ')" "false false true " \
	"a reading stream checks, a writing one skips: the phase's skip_unwritten is false (not every stream skipped)"

# ---- a verifying writer killed (kill -9) before its state was saved ----
# its first writes to units the state never had hold this target's own
# intact headers: no error, neither to verify_only nor after another write
run "$LUA_DIR/kill-write.lua" 0.3s 1
"$IOMOON" run --format none --quiet "$LUA_DIR/kill-write.lua" 30s 7 & pid=$!
sleep 1; kill -KILL $pid; wait $pid 2>/dev/null
v k.dat >/dev/null; kv=$(head -1 v.out | cut -f2,3)
run "$LUA_DIR/kill-write.lua" 0.3s 8; v k.dat >/dev/null
is "$kv $(head -1 v.out | cut -f2,3)" "$(printf '0	0 0	0')" \
	"a writer killed mid-phase, then verify_only, then another write and verify_only: 0 errors, 0 unexpected, each time"
# the first verifying writer of a new file killed: it saved no state at its
# end, but its target's id was saved as it began (nothing written yet)
"$IOMOON" run --format none --quiet "$LUA_DIR/kill-write.lua" 30s 7 k1.dat & pid=$!
sleep 1; kill -KILL $pid; wait $pid 2>/dev/null
v k1.dat >/dev/null; kv=$(head -1 v.out | cut -f2,3)
run "$LUA_DIR/kill-write.lua" 0.3s 8 k1.dat; v k1.dat >/dev/null
is "$kv $(head -1 v.out | cut -f2,3)" "$(printf '0	0 0	0')" \
	"the first writer of a new file killed, then verify_only, then another write and verify_only: 0 errors, 0 unexpected"

# ---- the fill kinds: holes and zeros are blank; someone else's data is not ----
run "$LUA_DIR/write.lua" h.dat false
is "$(v h.dat) $(head -1 v.out | cut -f2,4,5)" "$(printf 'exit 0 0\t2048\t14336')" "fill = false (holes): the never-written units are blank"
run "$LUA_DIR/write.lua" z.dat zero
is "$(v z.dat) $(head -1 v.out | cut -f2,4,5)" "$(printf 'exit 0 0\t2048\t14336')" "fill = \"zero\": blank too"
garbage h.dat 8 56
is "$(v h.dat) $(head -1 v.out | cut -f2,5,6)" "$(printf 'exit 1 14336\t0\t14336')" \
	"random data where nothing was written (an earlier iomoon's fill, anyone's file): 14336 unexpected"
is "$(v h.dat skip) $(head -1 v.out | cut -f2,4,7)" "$(printf 'exit 0 0\t2048\t14336')" "with skip_unwritten: 0 errors, 14336 skipped"
# an intact header where the state says nothing was written: a writer it does not know of
dd status=none conv=notrunc if=z.dat of=z.dat bs=4096 skip=0 seek=10240 count=1
is "$(v z.dat) $(head -1 v.out | cut -f2,3)" "$(printf 'exit 1 1\t1')" "a written unit copied to 40 MiB: 1 unexpected"
like "$(sed -n 3p v.out)" "unexpected: the unit at 41943040 holds an intact iomoon header of generation [0-9]+, but the state says it was never written with verification" \
	"the message says it is an intact header the state does not know of"

# ---- a verify in 512-byte units, and a phase that writes and reads ----
is "$(run "$LUA_DIR/units-512.lua" | tr '\t\n' '  ')" "0 300 300 512 153600 0 true 0 " \
	"512-byte units: 300 checked, 300 never written; a phase that writes and reads counts every unit it reads"

# ---- a phase that writes skips what was never written, unless told not to ----
# (what a mixed phase reads where nothing was written says nothing of what
# it wrote: on a disk that was not blank, an error there is a false alarm)
run "$LUA_DIR/write.lua" mx.dat
garbage mx.dat 20 40
is "$(run "$LUA_DIR/mixed.lua" | tr '\t\n' '  ')" "0 0 true true true " \
	"a mixed phase over 40 MiB of garbage where nothing was written: no error, those reads counted as skipped (the default)"
out=$(run "$LUA_DIR/mixed.lua" check | tr '\t\n' '  ')
like "$out" "^([1-9][0-9]*) \\1 false true false $" "the same with skip_unwritten = false: each such read an unexpected error ($out)"

# ---- bad input ----
err=$(run "$LUA_DIR/bad-skip-yes.lua" 2>&1); is $? 2 "skip_unwritten = \"yes\": exit 2"
like "$err" "skip_unwritten" "names the field"
err=$(run "$LUA_DIR/bad-skip-alone.lua" 2>&1); is $? 2 "skip_unwritten without verify: exit 2"
like "$err" 'phase.skip_unwritten: needs verify = "crc32c"' "says what it needs"
ok "$([ ! -e new1.dat ] && [ ! -e new2.dat ]; echo $?)" "and nothing was created"

# ---- under MPI: the counts of every rank summed, the written area's end the largest ----
case "$IOMOON" in *asan*) have_mpi=0 ;; *) have_mpi=1 ;; esac
if [ $have_mpi = 1 ] && command -v mpirun >/dev/null && "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi '; then
	export OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1
	out=$(timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$IOMOON" run --format none --quiet "$LUA_DIR/mpi.lua" 2>mpi.err | tail -1)
	# bytes is the cluster's quota, each rank writing its half: 128 KiB of r.0, 256 KiB of r.1
	is "$out" "$(printf '0\t96\t416\t262144')" \
		"2 ranks writing 128 and 256 KiB of their 1 MiB: 96 units checked (32 + 64), 416 never written, the area ends at 256 KiB (the larger)"
else
	skip "mpirun or MPI support missing, or the ASan build"
fi

# ---- the blank test and verify_read, unit by unit (tests/unit/test_fill.c) ----
unit_test test_fill "unit tests of the fill and of never-written units"
done_testing
