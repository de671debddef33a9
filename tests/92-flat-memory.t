#!/bin/bash
# (Not timed: peak RSS does not depend on what else the machine runs, so it
# runs beside another test.)
# Memory stays flat with the number of phases: nothing is kept per result
# unless a script or a report asks (iomoon.keep_results, --output). Peak
# RSS of 2,000 one-I/O phases against 200, as /usr/bin/time measures it.
# Under ASan the allocator's quarantine holds freed memory, so the figures
# say nothing there: skipped.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
"$IOMOON" quick --target m.dat --size 1m --ios 1 --quiet --format none
rss() { /usr/bin/time -f %M "$IOMOON" run --quiet "$@" 2>&1 >/dev/null | tail -1; }
case "$IOMOON" in
*asan*)
	for i in 1 2 3; do skip "peak RSS under ASan's quarantine says nothing"; done ;;
*)
	a=$(rss --format none "$LUA_DIR/many.lua" 200); b=$(rss --format none "$LUA_DIR/many.lua" 2000)
	[ "$b" -le $((a * 11 / 10)) ]; ok $? "--format none: 2000 phases peak at $b KiB, 200 at $a KiB (within 10 %)"
	a=$(rss "$LUA_DIR/many.lua" 200); b=$(rss "$LUA_DIR/many.lua" 2000)
	[ "$b" -le $((a * 11 / 10)) ]; ok $? "the table on stdout: 2000 phases $b KiB, 200 $a KiB (within 10 %)"
	a=$(rss --format none "$LUA_DIR/kept.lua" 200); b=$(rss --format none "$LUA_DIR/kept.lua" 2000)
	[ "$b" -gt $((a * 2)) ]; ok $? "keep_results(true) does keep them: $b KiB against $a KiB (the measure can see growth)"
	;;
esac
done_testing
