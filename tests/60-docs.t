#!/bin/bash
# Every ```lua and ```sh example in README.md and doc/*.md runs, each in an
# empty directory: Lua blocks with `iomoon run`, shell blocks with bash -e.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/examples"
names=$(python3 "$T/extract_examples.py" "$TMP/examples" "$ROOT/README.md" "$ROOT"/doc/*.md)
[ -n "$names" ]; ok $? "the docs hold examples"
export PATH="$(dirname "$IOMOON"):$PATH"
for n in $names; do
	d="$TMP/run-$n"
	mkdir -p "$d"
	case "$n" in
	*.lua) (cd "$d" && iomoon run --quiet --format none "$TMP/examples/$n") >"$d.out" 2>&1 ;;
	*.sh) (cd "$d" && bash -e "$TMP/examples/$n") >"$d.out" 2>&1 ;;
	esac
	rc=$?
	ok $rc "example $n runs"
	[ $rc -eq 0 ] || sed 's/^/#   /' "$d.out"
done
done_testing
