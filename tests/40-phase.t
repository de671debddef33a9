#!/bin/bash
# Phases and their bad input: see tests/lua/phase.lua.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/phase.lua" "$T" "$TMP"
done_testing
