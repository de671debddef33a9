#!/bin/bash
# Every ```lua and ```sh example in README.md and doc/*.md runs, each in an
# empty directory: Lua blocks with `iomoon run`, shell blocks with bash -e.
# Where a page shows what an example prints (an ```output block right after
# it, `-->` in a Lua example, or an ```output block after a comment
# `<!-- output of: COMMAND -->`, COMMAND then run as an example too), what
# it printed has the shape shown: the same lines, measurements aside
# (tests/doc_shown.py); an output-of block is the command's whole output,
# line for line, and on engine sim shows figures the sim can print.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/examples"
names=$(python3 "$T/extract_examples.py" "$TMP/examples" "$ROOT/README.md" "$ROOT"/doc/*.md 2>"$TMP/extract.err")
rc=$?
ok "$([ "$rc" -eq 0 ] && [ -n "$names" ]; echo $?)" "the docs hold examples, and every output they show follows one"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$TMP/extract.err"
export PATH="$(dirname "$IOMOON"):$PATH"
for n in $names; do
	d="$TMP/run-$n"
	mkdir -p "$d"
	case "$n" in
	*.lua) (cd "$d" && iomoon run --quiet --format none "$TMP/examples/$n") >"$d.out" 2>&1 ;;
	*.sh) (cd "$d" && bash -e "$TMP/examples/$n") >"$d.out" 2>&1 ;;
	esac
	rc=$?
	ran $rc "$(cat "$d.out")" "example $n runs"
	shown="$TMP/examples/${n%.*}.shown"
	if [ -e "$shown" ] && [ $rc -eq 0 ]; then
		# an output-of block: the command's whole output; on engine sim, figures the sim prints
		flags=()
		[ -e "${shown%.shown}.whole" ] && flags+=(--whole)
		[ -e "${shown%.shown}.whole" ] && grep -q -- '--engine sim' "$TMP/examples/$n" && flags+=(--sim)
		why=$(python3 "$T/doc_shown.py" "${flags[@]}" "$shown" "$d.out")
		ok $? "example $n prints what its page shows (the same lines, measurements aside)${why:+: $why}"
	fi
done
done_testing
