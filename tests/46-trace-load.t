#!/bin/bash
# Traces read and saved (doc/replay.md): see tests/lua/trace_load.lua; here
# what needs the command line or fio.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/trace_load.lua" "$T" "$TMP"

# a malformed line through the command line: exit 2, one line naming it
python3 "$T/trace_gen.py" iolog3 "$TMP/bad.iolog" --n 20 --bad 8
echo 'require("iomoon").trace.load(arg[1])' >"$TMP/load.lua"
err=$("$IOMOON" run --quiet --format none "$TMP/load.lua" "$TMP/bad.iolog" 2>&1 >/dev/null)
is "$?" 2 "a malformed trace line: exit 2"
like "$err" "bad.iolog: line 8: read without its offset and length" "the message names the file and line 8"
is "$(printf '%s\n' "$err" | wc -l)" 1 "one line on stderr"

# fio replays what trace.save writes: as many I/Os as the trace holds
if command -v fio >/dev/null; then
	cat >"$TMP/save.lua" <<'LUA'
local iomoon = require "iomoon"
local r = iomoon.run { target = { path = arg[1], size = "16m" }, bs = "4k", read = 50, random = 100, ios = 300, trace = 300, direct = false }
print(iomoon.trace.save(r, arg[2]))
LUA
	n=$("$IOMOON" run --quiet --format none "$TMP/save.lua" "$TMP/fio.dat" "$TMP/run.iolog")
	is "$n" 300 "a run's 300 I/Os saved as an iolog"
	out=$(fio --name=replay --read_iolog="$TMP/run.iolog" --replay_redirect="$TMP/fio.dat" --ioengine=psync \
		--output-format=json 2>"$TMP/fio.err")
	ok $? "fio --read_iolog accepts the saved iolog"
	ios=$(printf '%s' "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]
print(j["read"]["total_ios"] + j["write"]["total_ios"])' 2>/dev/null)
	is "$ios" 300 "fio replayed the 300 I/Os of the trace"
	[ "$ios" = 300 ] || sed 's/^/# /' "$TMP/fio.err"
else
	skip "fio is not installed"
fi
# hostile files: a FIFO without a writer and a device are refused at once
# (exit 2, no hang); a line over the 1 MiB buffer and a NUL byte are input
# errors naming their line
mkfifo "$TMP/fifo"
for f in "$TMP/fifo" /dev/zero; do
	err=$(timeout 20 "$IOMOON" trace profile "$f" --trace-format iolog 2>&1 >/dev/null)
	is "$?" 2 "$f: refused (exit 2), not read"
	like "$err" "not a regular file" "$f: the message says why"
done
{ echo "fio version 3 iolog"; head -c 1100000 /dev/zero | tr '\0' 7; echo; } >"$TMP/long.iolog"
err=$("$IOMOON" trace profile "$TMP/long.iolog" 2>&1 >/dev/null)
is "$?" 2 "a line over 1 MiB: exit 2"
like "$err" "long.iolog: line 2: longer than 1048576 bytes" "the message names line 2"
printf 'fio version 3 iolog\n0 d read 0 4096\n5 d read 0 4096\0junk\n' >"$TMP/nul.iolog"
err=$("$IOMOON" trace profile "$TMP/nul.iolog" 2>&1 >/dev/null)
is "$?" 2 "a NUL byte inside a line: exit 2"
like "$err" "nul.iolog: line 3: a NUL byte at column 16" "the message names line 3 and the column"
done_testing
