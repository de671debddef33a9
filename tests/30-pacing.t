#!/bin/bash
# test: timed (holds a measurement to a bound: make bench-timing runs it alone with IOMOON_TIMING=1)
# Pacing measured from per-I/O traces: see tests/lua/pacing.lua. A think
# delay of a bare 1 s or more is warned of, once per phase.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/pacing.lua" "$T" "$TMP"

# a think delay given as a bare number of a second or more (IOMeter's are
# milliseconds): one warning on stderr per phase, though each phase is
# checked before it runs; none for "5ms" or half a second
for d in 5 "5 string" 5ms 0.5; do
	"$IOMOON" run --format none "$LUA_DIR/think_bare.lua" $d >"$TMP/think.out" 2>"$TMP/think.err"
	is $? 0 "think delay $d: runs (exit 0)"
	case $d in
	*ms | 0.5) is "$(cat "$TMP/think.err")" "" "think delay $d: no warning" ;;
	*) is "$(grep -c warning "$TMP/think.err")/$(grep -c "^iomoon: warning: phase 'p1': phase.think.delay = 5 is read as 5 s (a bare number is seconds; IOMeter's delays are milliseconds: write \"5ms\" if that is meant)$" "$TMP/think.err")/$(grep -c "'p2'" "$TMP/think.err")" "2/1/1" \
		"think delay $d: one warning per phase (2), naming the phase, the field, the seconds and the \"5ms\" meant" ;;
	esac
done
done_testing
