#!/bin/sh
# crc32c in C (tests/unit/test_crc32c.c): the built test, then the same test
# built again with -DIOMOON_NO_CRC_INSN, so the portable table is shown to
# compile and to be the path taken (make test-asan runs the sanitized build).
. "$(dirname "$0")/lib.sh"
U="$ROOT/${UNIT_DIR:-build}/test_crc32c"
run_unit() { # run_unit BINARY WHAT
	out=$("$1"); rc=$?
	printf '%s\n' "$out" | sed 's/^/#   /'
	ok "$rc" "$2: $(printf '%s\n' "$out" | grep -c '^ok') passed, $(printf '%s\n' "$out" | grep -c '^not ok') failed"
}
if [ -x "$U" ]; then
	run_unit "$U" "crc32c as built"
else
	skip "$U not built (make $U)"
fi
CC=${CC:-cc}
if command -v "$CC" >/dev/null; then
	"$CC" -O2 -std=gnu11 -Wall -Wextra -Werror -DIOMOON_NO_CRC_INSN -I"$ROOT/src" -I"$ROOT/tests/unit" \
		-o "$TMP/test_crc32c_table" "$ROOT/tests/unit/test_crc32c.c" "$ROOT/src/core/crc32c.c"
	ok $? "built with -DIOMOON_NO_CRC_INSN (-Wall -Wextra -Werror)"
	run_unit "$TMP/test_crc32c_table" "crc32c by the table only"
	out=$("$TMP/test_crc32c_table" | grep 'takes the')
	like "$out" "takes the table path" "that build takes the table path"
else
	skip "no C compiler ($CC) to build the table-only crc32c"
fi
done_testing
