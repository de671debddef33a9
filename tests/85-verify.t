#!/bin/bash
# crc32c verification: a file written with headers, then damaged by dd at
# known offsets (bytes corrupted, a block copied over its neighbour, a block
# put back to an older copy of itself), is read back: exactly those blocks
# are reported, each as what it is.
. "$(dirname "$0")/lib.sh"
F="$TMP/v.dat"
cat >"$TMP/v.lua" <<LUA
local iomoon = require "iomoon"
local t = { path = "$F", size = "16m" }
local function dd(args) assert(os.execute("dd status=none conv=notrunc " .. args)) end
local r = iomoon.run { target = t, bs = "64k", read = 0, bytes = "16m", qd = 4, verify = "crc32c" }
assert(r.errors == 0 and r.bytes == 16 << 20, "write pass")
r = iomoon.run { target = t, bs = "4k", qd = 4, verify = "crc32c", verify_only = true }
print("clean", r.ios, r.errors)
-- an old copy of block 100, then block 100 rewritten, then the old copy put back: a lost write
dd("if=$F of=$TMP/old bs=4096 skip=100 count=1")
r = iomoon.run { target = t, bs = "4k", read = 0, region = { offset = 100 * 4096, size = 4096 }, ios = 1, verify = "crc32c" }
assert(r.ios == 1)
dd("if=$TMP/old of=$F bs=4096 seek=100 count=1")
-- bytes corrupted in blocks 200 and 333, block 401 copied over block 400
dd("if=/dev/urandom of=$F bs=1 seek=" .. (200 * 4096 + 1000) .. " count=8")
dd("if=/dev/zero of=$F bs=1 seek=" .. (333 * 4096 + 4095) .. " count=1")
dd("if=$F of=$F bs=4096 skip=401 seek=400 count=1")
r = iomoon.run { target = t, bs = "4k", qd = 1, verify = "crc32c", verify_only = true, on_error = "continue" }
print("damaged", r.errors, r.errors_by_errno.corrupt, r.errors_by_errno.misdirected, r.errors_by_errno.lost_write)
for _, e in ipairs(r.first_errors) do print(e.kind, e.unit_offset // 4096) end
LUA
out=$("$IOMOON" run --format none --quiet "$TMP/v.lua"); is $? 1 "a verify pass that finds damage: exit 1"
is "$(echo "$out" | sed -n 1p)" "$(printf 'clean\t4096\t0')" "an undamaged file verifies clean, all 4096 blocks"
is "$(echo "$out" | sed -n 2p)" "$(printf 'damaged\t4\t2\t1\t1')" "four damaged blocks: two corrupt, one misdirected, one lost write"
is "$(echo "$out" | sed -n '3,6p' | tr '\t\n' '  ')" "lost_write 100 corrupt 200 corrupt 333 misdirected 400 " "exactly those blocks, each named for what it is"
# the message says what was expected and found
cat >"$TMP/m.lua" <<LUA
local r = require("iomoon").run { target = "$F", bs = "4k", verify = "crc32c", verify_only = true, region = { offset = 400 * 4096, size = 4096 } }
print(r.first_error.message)
LUA
out=$("$IOMOON" run --format none --quiet "$TMP/m.lua")
like "$out" "misdirected: the unit at 1638400 holds the data written for offset 1642496" "a misdirected block names the offset its data was written for"
# units of 512 bytes when the sizes are not whole 4 KiB
cat >"$TMP/s.lua" <<LUA
local iomoon = require "iomoon"
local t = { path = "$TMP/s.dat", size = "1m" }
iomoon.run { target = t, bs = "1536", read = 0, bytes = 1536 * 600, verify = "crc32c" }
os.execute("dd status=none conv=notrunc if=/dev/zero of=$TMP/s.dat bs=1 seek=" .. (512 * 7 + 100) .. " count=1")
local r = iomoon.run { target = t, bs = "1536", verify = "crc32c", verify_only = true, on_error = "continue", bytes = 1536 * 600 }
print(r.errors, r.first_error.unit_offset)
LUA
out=$("$IOMOON" run --format none --quiet "$TMP/s.lua"); is "$out" "$(printf '1\t3584')" "1536-byte blocks: 512-byte units, the damaged one found"
err=$("$IOMOON" run --format none --quiet /dev/stdin 2>&1 <<LUA
require("iomoon").run { target = { path = "$TMP/x.dat", size = "1m" }, bs = 1000, direct = false, verify = "crc32c" }
LUA
); is $? 2 "crc32c with blocks not in whole 512-byte units: exit 2"
like "$err" "phase.verify: crc32c verifies whole 512-byte units; block size 1000 is not one" "says why"
err=$("$IOMOON" run --format none --quiet /dev/stdin 2>&1 <<LUA
require("iomoon").run { target = { path = "$TMP/x.dat", size = "1m" }, bs = "4k", verify_only = true }
LUA
); is $? 2 "verify_only without a verification: exit 2"
# the burn-in suite catches a corrupted block
"$IOMOON" suite burn-in --target "$TMP/b.dat" --size 16m --time 0.3 --quiet >/dev/null; ok $? "the burn-in suite passes on a healthy file"
done_testing
