#!/bin/bash
# test: timed (holds a measurement to a bound: make bench-timing runs it alone with IOMOON_TIMING=1)
# Phases and their bad input: see tests/lua/phase.lua.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/phase.lua" "$T" "$TMP"
done_testing
