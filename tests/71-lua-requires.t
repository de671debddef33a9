#!/bin/bash
# The Lua library's require graph (tests/lua/requires.lua): every
# lua/iomoon/**/*.lua requires its modules at its top level, by name, and
# the graph is a tree (no cycle); the checker itself is checked first.
. "$(dirname "$0")/lib.sh"
# shellcheck disable=SC2046 # one word per file: the library has no spaces in its names
lua_tap "$T/lua/requires.lua" "$T" "$ROOT/lua" $(cd "$ROOT/lua" && find iomoon -name '*.lua' | sort)
done_testing
