#!/bin/bash
# test: timed (holds a measurement to a bound: make bench-timing runs it alone with IOMOON_TIMING=1)
# The Lua module's functions (tests/lua/api.lua), script errors, and a phase
# interrupted by SIGINT keeping what it measured.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/api.lua" "$T" "$TMP"
# every Lua file of the tests compiles, those only skipped paths run included
out=$("$IOMOON" run --format none "$LUA_DIR/compile.lua" "$T" 2>&1)
like "$(printf '%s' "$out" | tr '\n' ' ')" '^[0-9]{3,}$' "every tests/**/*.lua compiles ($(printf '%s' "$out" | head -1) files)"

# script errors: file:line and a traceback, exit 2 (the broken scripts are
# written here, beside the lines their messages must name)
printf 'local function f(x)\n  return x.y\nend\nf(nil)\n' >"$TMP/bug.lua"
err=$("$IOMOON" run "$TMP/bug.lua" 2>&1); is $? 2 "a bug in a script: exit 2"
like "$err" 'bug.lua:2: attempt to index a nil value' "names file and line"
like "$err" 'stack traceback:' "prints a traceback"
printf 'x = = 1\n' >"$TMP/syntax.lua"
err=$("$IOMOON" run "$TMP/syntax.lua" 2>&1); is $? 2 "a syntax error: exit 2"
like "$err" "syntax.lua:1: unexpected symbol" "a syntax error names file and line"
err=$("$IOMOON" run "$TMP/missing.lua" 2>&1); is $? 2 "a missing script: exit 2"
like "$err" 'missing.lua: no such file' "a missing script is named"
# arguments reach the script as `arg`
out=$("$IOMOON" run "$LUA_DIR/args.lua" one two); is "$out" "$(printf '%s\tone\ttwo\t2' "$LUA_DIR/args.lua")" "script arguments in arg and ..."
# print() goes to stderr when stdout carries JSON
"$IOMOON" run --format json "$LUA_DIR/chatty.lua" "$TMP/p.dat" >"$TMP/p.json" 2>"$TMP/p.err"; ok $? "json with a chatty script exits 0"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$TMP/p.json"; ok $? "stdout stays one JSON document"
is "$(cat "$TMP/p.err")" "hello" "the script's print went to stderr"

# SIGINT: the phase stops within a second, reports what it measured, exit 1
"$IOMOON" run --format json "$LUA_DIR/long.lua" "$TMP/l.dat" >"$TMP/long.json" 2>"$TMP/long.err" &
pid=$!
sleep 1.5
start=$(date +%s%N)
kill -INT $pid
wait $pid
rc=$?
took=$(( ($(date +%s%N) - start) / 1000000 ))
is $rc 1 "interrupted run: exit 1"
ok $([ $took -lt 10000 ] && echo 0 || echo 1) "stopped ${took} ms after SIGINT, no hang"
timed ok $([ $took -lt 1000 ] && echo 0 || echo 1) "stopped ${took} ms after SIGINT (under a second)"
python3 - "$TMP/long.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["phases"]) == 1, [p["name"] for p in d["phases"]]
p = d["phases"][0]
assert p["interrupted"] is True and p["name"] == "long", p
assert 0.5 < p["seconds"] < 5 and p["ios"] > 0, (p["seconds"], p["ios"])
PY
ok $? "the partial phase is reported, marked interrupted; no later phase ran"
done_testing
