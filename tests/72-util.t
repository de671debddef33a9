#!/bin/bash
# iomoon.util, and the engine list and block-size limit taken from the core
# (tests/lua/util.lua); the usage text lists the same engines. The result's
# description, iomoon.result_fields, against real results
# (tests/lua/result_fields.lua).
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/util.lua" "$T" "$TMP"
lua_tap "$T/lua/result_fields.lua" "$T" "$TMP"

engines=$("$IOMOON" run --format none "$LUA_DIR/engines.lua")
help=$("$IOMOON" help)
[[ "$help" == *"--engine NAME     $engines"$'\n'* ]]
ok $? "help lists the engines of the core's table ($engines)"
ok "$([ ! -e "$TMP/u.dat" ] && echo 0 || echo 1)" "the refused engine created nothing"
done_testing
