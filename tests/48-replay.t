#!/bin/bash
# Replay: the trace's records issued as recorded (tests/lua/replay.lua:
# ops, offsets, lengths, times, speed, no_stall, offsets, devices, passes,
# streams, bad input), and `iomoon replay` on the command line.
. "$(dirname "$0")/lib.sh"
mkdir "$TMP/lua"
lua_tap "$T/lua/replay.lua" "$T" "$TMP/lua"
done_testing
