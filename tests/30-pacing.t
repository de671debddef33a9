#!/bin/bash
# test: timed (holds a measurement to a bound: make test runs it alone, not beside another)
# Pacing measured from per-I/O traces: see tests/lua/pacing.lua.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/pacing.lua" "$T" "$TMP"
done_testing
