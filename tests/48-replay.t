#!/bin/bash
# test: timed (holds a measurement to a bound: make test runs it alone, not beside another)
# Replay: the trace's records issued as recorded (tests/lua/replay.lua:
# ops, offsets, lengths, times, speed, no_stall, offsets, devices, passes,
# streams, bad input), and `iomoon replay` on the command line.
. "$(dirname "$0")/lib.sh"
mkdir "$TMP/lua"
lua_tap "$T/lua/replay.lua" "$T" "$TMP/lua"
cd "$TMP" || exit 1

# ---- iomoon replay: every flag reaches the result ----
python3 - "$TMP/t.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("fio version 3 iolog\n0 d add\n0 d open\n")
    for i in range(400):
        f.write("%d d %s %d 4096\n" % (i * 500, "write" if i % 4 == 0 else "read", (i * 7919 % 2048) * 4096))
    f.write("200000 d close\n")
PY
"$IOMOON" replay "$TMP/t.log" --target "$TMP/r.dat" --speed 2 --qd 8 --offsets wrap --loop 2 --format json \
	>"$TMP/r.json" 2>"$TMP/r.err"
is $? 0 "iomoon replay: exit 0"
fields=$(python3 - "$TMP/r.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
r = p["replay"]
print(r["speed"], r["offsets"], r["loop"], r["ios"], p["qd"], p["read"]["ios"] + p["write"]["ios"], p["name"])
PY
)
is "$fields" "2 wrap 2 800 8 800 replay of t.log" "iomoon replay: --speed, --offsets, --loop and --qd reach the result (800 I/Os: two passes)"
like "$(stat -c %s "$TMP/r.dat")" "^8388608$" "iomoon replay: a new target as large as the trace reaches (8 MiB)"
"$IOMOON" replay "$TMP/t.log" --engine sim --no-stall --qd 1 --format json >"$TMP/n.json" 2>/dev/null
is "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["phases"][0]["replay"]; print(r["no_stall"], r["lag_max_ns"])' "$TMP/n.json")" \
	"True 0" "iomoon replay --no-stall: in the result, and no lag"

# ---- bad input: exit 2, the option named, nothing created ----
out=$("$IOMOON" replay "$TMP/t.log" --target "$TMP/no.dat" --spede 2 2>&1)
is $? 2 "iomoon replay --spede: exit 2"
like "$out" "unknown option --spede \(did you mean --speed\?\)" "iomoon replay --spede: the option and the nearest name"
out=$("$IOMOON" replay "$TMP/t.log" --target "$TMP/no.dat" --speed 0 2>&1)
is $? 2 "iomoon replay --speed 0: exit 2"
like "$out" "speed: 0 is not a speed" "iomoon replay --speed 0: says what a speed is"
out=$("$IOMOON" replay "$TMP/missing.log" --target "$TMP/no.dat" 2>&1)
is $? 2 "iomoon replay of a missing trace: exit 2"
like "$out" "missing.log" "iomoon replay of a missing trace: names it"
[ ! -e "$TMP/no.dat" ]
ok $? "iomoon replay refused: no target created"

# ---- iomoon trace profile ----
out=$("$IOMOON" trace profile "$TMP/t.log" 2>&1)
is $? 0 "iomoon trace profile: exit 0"
like "$out" "400 I/Os over 0.200 s" "iomoon trace profile: the I/Os and the span"
like "$out" "read 75.0 %, write 25.0 %" "iomoon trace profile: the op shares"
out=$("$IOMOON" trace profil "$TMP/t.log" 2>&1)
is $? 2 "iomoon trace profil: exit 2"
# a trace that trims, on a file system that cannot punch holes (ramfs): the
# replay is named (not a mix the phase does not have), nothing is created
mkdir -p "$TMP/ramfs"
if mount -t ramfs ramfs "$TMP/ramfs" 2>/dev/null; then
	MOUNTS="$MOUNTS $TMP/ramfs"
	printf 'fio version 3 iolog\n0 d write 0 65536\n10 d trim 0 8192\n' >"$TMP/trim.log"
	out=$("$IOMOON" run /dev/stdin 2>&1 <<LUA
local iomoon = require "iomoon"
iomoon.run { target = { path = "$TMP/ramfs/t.dat", size = "1m", fill = false }, direct = false,
  replay = iomoon.trace.load("$TMP/trim.log") }
LUA
)
	is $? 2 "a trimming trace on ramfs: exit 2"
	like "$out" "phase.replay: trims .*cannot discard" "the message names phase.replay"
	[ ! -e "$TMP/ramfs/t.dat" ]
	ok $? "no target created on ramfs"
	umount_wait "$TMP/ramfs"
else
	skip "ramfs cannot be mounted here"
fi
done_testing
