#!/bin/bash
# crc32c verification under attack: states found by identity (links), the
# user's files beside a target left alone, iomoon's own plain writes, a
# buffered verify that must read the disk, a truncated file, several
# workers writing one target, maps of re-created files, a missing state
# directory, another target's data.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
cat >w.lua <<'LUA'
local r = require("iomoon").run { target = { path = arg[1], size = "4m" }, bs = "4k", read = 0, random = 0,
  bytes = "4m", verify = "crc32c" }
print("w", r.ios, r.errors, r.failed)
LUA
cat >v.lua <<'LUA'
local r = require("iomoon").run { target = arg[1], bs = "4k", verify = "crc32c", verify_only = true, on_error = "continue" }
local e = r.errors_by_errno
print(r.ios, r.errors, e.missing or 0, e.lost_write or 0, e.foreign or 0)
LUA
run() { "$IOMOON" run --format none --quiet "$@"; }
w() { run w.lua "$1" >/dev/null || echo "write $1 failed"; }
v() { run v.lua "$1"; echo "exit $?"; }

# V1: an older copy put back is a lost write whatever path names the file
w w.dat; cp w.dat old.dat; w w.dat; cp old.dat w.dat
ln -s w.dat link.dat; ln w.dat hard.dat
is "$(v link.dat | tr '\t\n' '  ')" "1024 1024 0 1024 0 exit 1 " "an older copy, verified through a symlink: 1024 lost writes, exit 1"
is "$(v hard.dat | tr '\t\n' '  ')" "1024 1024 0 1024 0 exit 1 " "through a hard link: the same"
rm -f w.dat link.dat hard.dat old.dat
w w.dat; w w.dat; ln -s w.dat link.dat; w link.dat
is "$(v w.dat | tr '\t\n' '  ')" "1024 0 0 0 0 exit 0 " "two writes by name, one through a symlink: generations go on, verified clean"
ok "$([ ! -e w.dat.iomoon-verify ] && [ ! -e link.dat.iomoon-verify ]; echo $?)" "no state beside the file"
rm -f w.dat link.dat

# D5: files beside a new target, named like the old states, are the user's
echo "user data" >n.dat.iomoon-verify; echo "user tmp" >n.dat.iomoon-verify.tmp
w n.dat
is "$(cat n.dat.iomoon-verify n.dat.iomoon-verify.tmp | tr '\n' ' ')" "user data user tmp " \
	"a verified write to a new n.dat leaves n.dat.iomoon-verify and its .tmp as they were"
is "$(ls "$IOMOON_STATE_DIR" | grep -c '\.tmp')" "0" "and leaves no temporary in the state directory"

# V4: iomoon's own plain writes make the state stale: verify_only refuses
w p.dat
"$IOMOON" quick --target p.dat --read 0 --ios 10 --quiet >/dev/null
err=$(run v.lua p.dat 2>&1); is $? 2 "verify_only after a non-verifying write: exit 2, not corruption"
like "$err" "p\.dat was written without verification since the last verified write: rewrite it with verify, or delete the state .*file-" \
	"says why and what to do"
w p.dat
is "$(v p.dat | tr '\t\n' '  ')" "1024 0 0 0 0 exit 0 " "rewritten with verify: clean again"
cat >s.lua <<'LUA'
local iomoon = require "iomoon"
local t = { path = "s.dat", size = "1m" }
iomoon.run { target = t, bs = "4k", read = 0, bytes = "1m", verify = "crc32c" }
iomoon.run { target = "s.dat", bs = "4k", read = 0, ios = 10 }
local ok, e = pcall(iomoon.run, { target = "s.dat", bs = "4k", verify = "crc32c", verify_only = true, on_error = "continue" })
print(ok, tostring(e):match("written without verification") ~= nil)
LUA
is "$(run s.lua | tr '\t\n' '  ')" "false true " "in one process too: verify write, plain write, verify_only refuses"

# V2: a verified file truncated to half
w h.dat; truncate -s 2M h.dat
err=$(run v.lua h.dat 2>&1); is $? 2 "a verified file truncated to half: exit 2"
like "$err" "h\.dat is smaller than what was written with verification \(2097152 bytes now\)" "says the target shrank"

# V3: another target's data, copied over, is foreign
w a.dat; w b.dat; w b.dat; cp b.dat a.dat
is "$(v a.dat | tr '\t\n' '  ')" "1024 1024 0 0 1024 exit 1 " "b.dat's data copied over a.dat: 1024 foreign units, exit 1"

# V5: several workers writing one target with verification: a slice each
cat >m.lua <<'LUA'
local iomoon = require "iomoon"
local r = iomoon.run { target = { path = "m.dat", size = "4m" }, workers = 4, qd = 8, bs = "4k", read = 0,
  random = 100, ios = 4000, verify = "crc32c" }
assert(r.errors == 0)
local f = assert(io.open("m.dat", "rb"))
local wrong, seen = 0, 0
for u = 0, 1023 do
  f:seek("set", u * 4096)
  local magic, _, off, _, _, worker = string.unpack("<I4I4I8I8I4I2", f:read(32))
  if magic == 0x564d4f49 then
    seen = seen + 1
    if worker ~= u // 256 or off ~= u * 4096 then wrong = wrong + 1 end
  end
end
print(seen > 500, wrong)
local ok, e = pcall(iomoon.run, { target = "m.dat", workers = 8, bs = "64k", read = 0, region = "256k", ios = 8, verify = "crc32c" })
print(ok, tostring(e):match("phase%.workers: 8 workers writing with verification get a slice") ~= nil)
LUA
is "$(run m.lua | tr '\t\n' '  ')" "true 0 false true " \
	"4 workers, random writes: every unit written by the worker whose quarter it is; slices smaller than a block refused"
"$IOMOON" suite burn-in --target bi.dat --size 8m --time 0.5s --workers 4 --qd 16 --quiet >/dev/null
ok $? "the burn-in suite with 4 workers passes on healthy storage"

# H2: maps of files re-created and deleted do not pile up
cat >g.lua <<'LUA'
local iomoon = require "iomoon"
local function rss()
  for l in io.lines("/proc/self/status") do
    local k = l:match("^VmRSS:%s+(%d+)") if k then return tonumber(k) end
  end
end
local first
for round = 1, 24 do
  local t = { path = "g.dat", size = "256m" }
  for _ = 1, 4 do iomoon.run { target = t, bs = "4k", read = 0, ios = 4, verify = "crc32c" } end
  os.remove("g.dat")
  os.execute("rm -f " .. os.getenv("IOMOON_STATE_DIR") .. "/file-*")
  if round == 4 then first = rss() end
end
print(rss() - first < 2048, rss() - first)
LUA
case "$IOMOON" in
*asan*) skip "RSS under ASan's quarantine says nothing about leaks (LeakSanitizer checks those)" ;;
*) like "$(run g.lua | tr '\t\n' '  ')" "^true " "24 rounds of a 256 MiB file re-created: RSS grows less than 2 MiB after round 4" ;;
esac

# H4: a state directory that does not exist is made; one that cannot be is bad input
IOMOON_STATE_DIR="$TMP/a/b/c" w d.dat
ok "$(ls "$TMP"/a/b/c/file-*.iomoon-verify >/dev/null 2>&1; echo $?)" "IOMOON_STATE_DIR=\$TMP/a/b/c is created, the state in it"
echo x >plain
err=$(IOMOON_STATE_DIR="$TMP/plain/st" run w.lua e.dat 2>&1); is $? 2 "a state directory under a regular file: exit 2"
like "$err" "IOMOON_STATE_DIR: .*plain/st cannot hold the verification state" "names IOMOON_STATE_DIR"
ok "$([ ! -e e.dat ]; echo $?)" "and nothing was created"

# V6: a buffered verify reads the disk, not the page cache
if command -v mkfs.ext4 >/dev/null && truncate -s 64m fs.img && mkfs.ext4 -q -F fs.img 2>/dev/null &&
	L=$(losetup -f --show fs.img 2>/dev/null); then
	LOOPS="$LOOPS $L"
	mkdir mnt
	if mount "$L" mnt 2>/dev/null; then
		MOUNTS="$MOUNTS $TMP/mnt"
		cat >bw.lua <<'LUA'
local iomoon = require "iomoon"
local r = iomoon.run { target = { path = "mnt/f.dat", size = "1m" }, bs = "4k", read = 0, bytes = "1m", direct = false, verify = "crc32c" }
assert(r.errors == 0 and not r.failed)
LUA
		cat >bv.lua <<'LUA'
local r = require("iomoon").run { target = "mnt/f.dat", bs = "4k", direct = false, verify = "crc32c", verify_only = true, on_error = "continue" }
print(r.ios, r.errors)
LUA
		run bw.lua
		blk=$(filefrag -v mnt/f.dat | awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 }')
		bs=$(stat -f -c %S mnt)
		dd status=none conv=notrunc,fsync if=/dev/urandom of="$TMP/fs.img" bs="$bs" seek="$blk" count=1
		is "$(run bv.lua | tr '\t\n' '  ')" "256 1 " "a block corrupted behind the page cache: a buffered verify finds it"
	else
		skip "cannot mount here"
	fi
else
	skip "no mkfs.ext4 or loop device here"
fi
done_testing
