#!/bin/bash
# What the reports show (issue 25, doc/reports.md): sync and trim latency
# (and the writes of a target opened O_DSYNC) as rows of their own under
# their phase or stream in the table, Markdown and HTML: the commit latency
# of a WAL.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

# ---- syncs and trims: a row of their own under their phase ----
"$IOMOON" run --quiet --format json --output d.json "$LUA_DIR/durable.lua" "$TMP/d.dat"
is $? 0 "a WAL with fdatasync, a phase that trims, a plain one: exit 0"
"$IOMOON" report d.json >d.table
# want: the figures the JSON holds, as the table must show them
python3 - d.json >want.table <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"]
def ms(ns): return "%.3f" % (ns / 1e6)
s = p[0]["sync"]
print("  fdatasync after every write|%s|%.0f|-|-|%s|max %s ms, 200 syncs" % (ms(s["lat"]["mean_ns"]), s["iops"], ms(s["lat"]["p99_ns"]), ms(s["lat"]["max_ns"])))
t = p[1]["trim"]
print("  trims|%s|%.0f|%.2f|-|%s|max %s ms, %d trims" % (ms(t["lat"]["mean_ns"]), t["iops"], t["mib_per_s"], ms(t["lat"]["p99_ns"]), ms(t["lat"]["max_ns"]), t["ios"]))
PY
got=$(awk 'substr($0, 1, 2) == "  " && !/O_DSYNC/ { n = substr($0, 1, 36); sub(/ +$/, "", n); rest = substr($0, 37); split(rest, f, "  +");
	printf "%s|%s|%s|%s|%s|%s|%s\n", n, f[2], f[3], f[4], f[5], f[6], f[7] }' d.table)
is "$got" "$(cat want.table)" "table: the WAL's fdatasync and the trims, each a row under its phase: mean, IOPS, (trim MiB/s), p99, max and count"
is "$(sed -n 1p d.table | sed -E 's/ +$//' | wc -c)" "$(grep '^  fdatasync' d.table | sed -E 's/  max .*//' | wc -c)" \
	"table: the sync row ends its p99 where the header ends (aligned)"
is "$(sed -E 's/^(.{36}).*/\1/; s/ +$//' d.table | tr '\n' '|')" "Test name|wal|  fdatasync after every write|trim|  trims|plain|log|  writes with O_DSYNC|" \
	"table: a row each, the sync and trim rows right under theirs, none for the plain phase"
md=$("$IOMOON" report d.json --format markdown)
like "$md" '\| wal: fdatasync after every write \| [0-9]+ \| - \| [0-9.]+ \| [0-9.]+ \| - \| 0 \| max [0-9.]+ ms, 200 syncs \|' \
	"markdown: the WAL's fdatasync row (IOPS, mean, p99; max and count)"
like "$md" '\| trim: trims \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| - \| 0 \| max [0-9.]+ ms, [0-9]+ trims \|' "markdown: the trims' row"
is "$(printf '%s\n' "$md" | grep -c '^| plain')" 1 "markdown: the plain phase is one row"
like "$(grep '^  writes with O_DSYNC' d.table)" '^  writes with O_DSYNC +[0-9.]+ +[0-9]+ +[0-9.]+ +- +[0-9.]+  max [0-9.]+ ms, 50 writes$' \
	"table: a log opened O_DSYNC says its writes are its commits (their mean, IOPS, MiB/s, p99, max, count)"
"$IOMOON" report d.json --format html >d.html
grep -Eq '<tr class="op sync"><td class="n"><a href="#phase-1">wal: fdatasync after every write</a>' d.html
ok $? "html: the summary's fdatasync row under the WAL"
grep -Eq '<tr class="op trim"><td class="n"><a href="#phase-2">trim: trims</a>' d.html; ok $? "html: the trims' row"
done_testing
