#!/bin/bash
# Pacing measured from per-I/O traces: see tests/lua/pacing.lua.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/pacing.lua" "$T" "$TMP"
done_testing
