#!/bin/bash
# The source tree as doc/design.md draws it ("The source tree"): folders by
# layer, every C file in the table, Lua's headers only in the binding, no
# C file over 800 lines, includes pointing down the layers
# (tests/check_layout.py does the looking).
. "$(dirname "$0")/lib.sh"

out=$(python3 "$T/check_layout.py" "$ROOT"); rc=$?
ok "$rc" "check_layout.py ran"
while IFS= read -r line; do
	case "$line" in
	"ok "*) ok 0 "${line#ok }" ;;
	"not ok "*) ok 1 "${line#not ok }" ;;
	*) echo "$line" ;;
	esac
done <<<"$out"

# The checker itself: a file left out of the table, a Lua header in the
# core and an include of a later layer are each found (in a copy).
cp -r "$ROOT/src" "$ROOT/doc" "$TMP/"
echo '/* x.c - nothing */' >"$TMP/src/core/x.c"
echo '#include <lua.h>' >>"$TMP/src/core/clock.c"
echo '#include "run/phase.h"' >>"$TMP/src/core/units.c"
out=$(python3 "$T/check_layout.py" "$TMP")
like "$out" "not in the table: core/x.c" "a C file missing from the table is found"
like "$out" "not ok no file outside src/lua/.*
#   core/clock.c" "a Lua header in the core is found"
like "$out" "core/units.c includes from run/, a later layer" "an include of a later layer is found"
done_testing
