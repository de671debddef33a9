#!/bin/bash
# verify_only reads every unit of each target's region exactly once,
# whatever the workers: each worker reads its part of its target's region
# (wl_part: the parts tile the region's whole blocks, the first ones a
# block more), and its quota is that part. It once took its start from one
# rule (region / workers x i) and its quota from another (whole blocks, the
# first workers one more): 10 blocks over 3 workers read block 3 twice and
# block 9 never, so a bad unit there was never found. Here a file of 10
# blocks of 64 KiB is written with verification, one unit of block 9 is
# corrupted, and verify_only over 1 to 16 workers, over two targets, and
# with verify = "offset" must find it; a tail under a block is not read
# and counts as skipped; what cannot be read once is refused.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
run() { "$IOMOON" run --format none --quiet "$@"; }
K=65536
# w.lua PATH BLOCKS [TAIL] [offset]: BLOCKS x 64 KiB written in order with verification (and TAIL bytes more, unwritten)
cat >w.lua <<'LUA'
local off = arg[4] == "offset"
local r = require("iomoon").run { target = { path = arg[1], size = arg[2] * 65536 + (tonumber(arg[3]) or 0) },
  bs = "64k", read = 0, random = 0, bytes = arg[2] * 65536, verify = off and "offset" or "crc32c",
  pattern = off and "offset" or nil }
assert(r.errors == 0 and r.ios == tonumber(arg[2]), "the write pass")
LUA
# v.lua WORKERS VERIFY PATH...: verify_only over the paths, on_error = "continue": counts, then the first errors
# (their kind, EILSEQ for the offset pattern, and unit)
cat >v.lua <<'LUA'
local paths = { table.unpack(arg, 3) }
local r = require("iomoon").run { target = paths, bs = "64k", workers = tonumber(arg[1]), verify = arg[2],
  verify_only = true, on_error = "continue" }
local v = r.verify or {}
local bad = r.errors_by_errno
print(r.ios, r.errors, v.units_checked or "-", v.units_skipped or "-")
for _, e in ipairs(r.first_errors) do print(e.kind or (bad.EILSEQ and "EILSEQ"), e.unit_offset or e.offset) end
LUA
spoil() { dd status=none conv=notrunc if=/dev/urandom of="$1" bs=1 seek=$(($2 * K + 100)) count=4; }

run w.lua a.dat 10 && spoil a.dat 9; ok $? "a.dat: 10 blocks written with crc32c, block 9 spoilt"
for w in 1 2 3 4 7 10 16; do
	out=$(run v.lua "$w" crc32c a.dat); rc=$?
	is "$rc $(echo "$out" | tr '\t\n' '  ')" "1 10 1 160 0 corrupt $((9 * K)) " \
		"$w workers: exit 1, 10 reads, the 1 bad unit (block 9) found, 160 units checked"
done
run w.lua c.dat 10; ok $? "c.dat: 10 blocks written with crc32c, left alone"
for w in 3 7; do
	is "$(run v.lua "$w" crc32c c.dat; echo "exit $?")" "$(printf '10\t0\t160\t0\nexit 0')" \
		"$w workers, nothing spoilt: 10 reads, 160 units checked, 0 errors, exit 0"
done

# two targets: worker i on target i % 2; each target's workers share its region
run w.lua b.dat 13 && spoil b.dat 12; ok $? "b.dat: 13 blocks, its last (12) spoilt"
for w in 2 3 7; do
	out=$(run v.lua "$w" crc32c a.dat b.dat); rc=$?
	is "$rc $(echo "$out" | sed -n 1p | tr '\t' ' ')" "1 23 2 368 0" \
		"$w workers over a.dat (10 blocks) and b.dat (13): 23 reads, 2 bad units, 368 units checked"
	is "$(echo "$out" | sed 1d | sort | tr '\t\n' '  ')" "corrupt $((9 * K)) corrupt $((12 * K)) " \
		"$w workers over two targets: the last block of each found"
done

# a tail under a block: not read, its units counted as skipped
run w.lua t.dat 10 8192; ok $? "t.dat: 10 blocks written and 8 KiB more (never written)"
is "$(run v.lua 3 crc32c t.dat; echo "exit $?")" "$(printf '10\t0\t160\t2\nexit 0')" \
	"a tail of 8 KiB: 10 reads of 64 KiB (none wraps to block 0), 160 units checked, the tail's 2 units skipped"

# verify = "offset": the same coverage
run w.lua o.dat 10 0 offset && spoil o.dat 9; ok $? "o.dat: 10 blocks of the offset pattern, block 9 spoilt"
for w in 1 3 7; do
	out=$(run v.lua "$w" offset o.dat); rc=$?
	is "$rc $(echo "$out" | tr '\t\n' '  ')" "1 10 1 - - EILSEQ $((9 * K)) " \
		"verify = offset, $w workers: 10 reads, block 9 found"
done

# what cannot be read once is refused (a bytes quota says what to read instead)
cat >r.lua <<'LUA'
local fields = load("return {" .. arg[1] .. "}")()
fields.target, fields.verify, fields.verify_only = "c.dat", "crc32c", true
require("iomoon").run(fields)
LUA
err=$(run r.lua 'bs = { "4k", "64k" }' 2>&1); rc=$?
like "$rc $err" '^2 .*phase.verify_only: reads the region once in blocks of one size, but bs gives 4096 to 65536 bytes \(give one bs, or a bytes quota\)' \
	"two block sizes: exit 2, naming them"
err=$(run r.lua 'bs = "64k", ramp = 0.1' 2>&1); rc=$?
like "$rc $err" '^2 .*phase.ramp: given with phase.verify_only, which reads each unit once' "a ramp: exit 2"
err=$(run r.lua 'mix = { { bs = "64k", region = { offset = 0, size = 262144 } } }' 2>&1); rc=$?
like "$rc $err" '^2 .*phase.mix\[1\].region: given with verify_only' "a spec's own region: exit 2"
run r.lua 'bs = { "4k", "64k" }, bytes = 262144'; is $? 0 "two block sizes with a bytes quota: as asked, exit 0"
done_testing
