#!/bin/bash
# test: timed (holds a measurement to a bound: make bench-timing runs it alone with IOMOON_TIMING=1)
# The HTML report (doc/reports.md): one self-contained file (no network, the
# data block cannot be ended by a name), the summary marks errors,
# interrupted phases and unmet rates, and in a real browser (Debian's
# chromium, headless) every report draws what its data asks for without a
# script error: one phase with streams, a sweep of 12 queue depths (each
# point labelled with its QD), a noisy sweep whose knee is marked where
# html.knee puts it (tests/lua/knee.lua: the knee on exact series), an
# interrupted run, a run with errors, and 1,000 phases under 2 s.
# Under ASan the browser part is skipped (the suite's other run has it).
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
F="$TMP/t.dat"

# the knee of a sweep, exact answers on clean and noisy series
lua_tap "$T/lua/knee.lua" "$T"

# ---- the reports ----
"$IOMOON" run --quiet --format html --output one.html "$LUA_DIR/one.lua" >/dev/null 2>one.err
is $? 0 "one phase with streams: --format html, exit 0"

"$IOMOON" run --quiet --format html --output sweep.html "$LUA_DIR/sweep.lua" >/dev/null 2>sweep.err
is $? 0 "a sweep of 12 queue depths: exit 0"

"$IOMOON" run --quiet --format html --output errors.html "$LUA_DIR/errors.lua" "$F" >/dev/null 2>errors.err
is $? 1 "a run with errors: exit 1"

"$IOMOON" run --quiet --format html --output intr.html "$LUA_DIR/long.lua" >/dev/null 2>intr.err &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
is $? 1 "an interrupted run: exit 1"

out=$("$IOMOON" run --quiet --format none "$T/html/big.lua" "$TMP/big.html" 1000)
read -r big_cpu big_ms big_size <<<"$out"
echo "# 1,000 phases: rendered by Lua in $big_cpu ms of CPU ($big_ms ms), $big_size bytes; one phase: $(stat -c %s one.html) bytes"
case "$IOMOON" in
*asan*) skip "the Lua render time of 1,000 phases: not under ASan" ;;
*) [ "$big_cpu" -lt 2000 ]; ok $? "1,000 phases: Lua renders the page in under 2 s of CPU ($big_cpu ms)" ;;
esac

# a noisy sweep of 8 queue depths, given out of their loads' order
"$IOMOON" run --quiet --format none "$LUA_DIR/noisy.lua" "$TMP/noisy.html" >/dev/null

# a phase whose WAL stream syncs after every write (its commit latency),
# and a replay whose lag grows
"$IOMOON" run --quiet --format html --output durable.html "$LUA_DIR/durable.lua" "$TMP/db.dat" "$TMP/tr.log" >/dev/null 2>durable.err
is $? 0 "a phase with an fdatasync after every write, and a replay that falls behind: exit 0"

# a day of intervals (5,000 here), one of them ten times the others
"$IOMOON" run --quiet --format none "$LUA_DIR/day.lua" "$TMP/long.html" >/dev/null

# a short SNIA PTS latency test (doc/reports.md, "SNIA PTS pages")
"$IOMOON" suite snia-pts-latency --target "$TMP/pts.dat" --size 8m --round 5s --ios 16 --max-rounds 5 --quiet \
	--format html --output pts.html 2>/dev/null
is $? 0 "a SNIA PTS latency test: --format html, exit 0"

# ---- the HTML text ----
for r in one sweep noisy errors intr big long durable pts; do
	h="$r.html"
	[ "$(head -c 15 "$h")" = "<!DOCTYPE html>" ]; ok $? "$r: an HTML document"
	grep -Eiq "(src|href|url)[[:space:]]*[=(][[:space:]]*[\"']?[[:space:]]*([a-z]+:)?//" "$h"; is $? 1 "$r: nothing fetched from the network (no src, href or url to another host)"
	grep -Eiq "<(link|img|iframe|object|embed)[[:space:]>]" "$h"; is $? 1 "$r: no file beside it (no link, img, iframe, object, embed)"
	is "$(grep -o '</script>' "$h" | wc -l)" 2 "$r: </script> only where the two script blocks end"
	is "$(grep -c '<!--' "$h")" 0 "$r: no <!-- (the data block writes < as \\u003c)"
	grep -q '<table class="kv" id="machine"><tr><td>' "$h"; ok $? "$r: the machine is described"
done
grep -q '<a href="#phase-1">one &#60;/script&#62;&#60;!-- &#34;x&#34; &#38; &#60;b&#62;y&#60;/b&#62;</a>' one.html
ok $? "one: the name in the summary as text, its markup escaped"
is "$(grep -c 'href="#phase-1">one.* / s[12]<' one.html)" 2 "one: a summary row per stream"
is "$(grep -c 'href="#phase-' sweep.html)" 12 "sweep: 12 summary rows"
grep -q '"groups":\[{[^{}]*"members":\[0,1,2,3,4,5,6,7,8,9,10,11\]' sweep.html; ok $? "sweep: one curve of IOPS against latency, its 12 phases by queue depth"
grep -Eq '<tr class="bad"><td class="n"><a href="#phase-2">verify</a>.*class="st mark">[0-9]+ errors? \(' errors.html
ok $? "errors: the verify phase's row marked with its errors"
grep -Eq '<tr class="rate"><td class="n"><a href="#phase-3">paced</a>.*rate not met: [0-9]+ of 5000 IOPS' errors.html
ok $? "errors: the unmet rate marked"
grep -Eq '<tr class="bad"><td class="n"><a href="#phase-4">nothing</a>.*>FAILED: no I/O completed' errors.html
ok $? "errors: the phase that completed no I/O marked FAILED"
grep -Eq '<tr class="intr"><td class="n"><a href="#phase-1">long</a>.*>interrupted</td>' intr.html
ok $? "interrupted: the phase's row marked interrupted"
grep -Eq '<tr class="op sync"><td class="n"><a href="#phase-1">db / wal: fdatasync after every write</a></td><td>[0-9.]+</td><td>[0-9]+</td><td>-</td><td>-</td><td>[0-9.]+</td><td>-</td><td class="st">max [0-9.]+ ms, [0-9]+ syncs</td>' durable.html
ok $? "durable: the summary has the WAL's fdatasync row (mean, rate, p99; max and count) under its stream"
grep -Eq '<a href="#phase-2">replayed</a>.*<td class="replay">[0-9.]+ %</td><td class="replay">[0-9.]+</td><td class="n replay">600 of 600 \(missed 0, cut 0\)</td>' durable.html
ok $? "durable: the summary says how faithful the replay was (on time, lag p99 ms, records replayed)"
grep -q '1 interrupted' intr.html; ok $? "interrupted: the count above the summary says so"
is "$(grep -o '<svg class="pts-chart" id="pts-latency-[a-z0-9]*"' pts.html | sed 's/.*id=//' | tr '\n' ' ')" \
	'"pts-latency-convergence" "pts-latency-window" "pts-latency-2d" ' "pts: the convergence, window and 2D charts, in the page without the script"
grep -q '<table class="pts-window" id="pts-latency-table2">' pts.html; ok $? "pts: the window tables (mean, and maximum response time)"
grep -Eq '<tr><td>Steady state</td><td class="(ok|mark)">steady state (reached in round|NOT reached in)' pts.html
ok $? "pts: the summary says whether steady state was reached"

# two runs compared: both on the same charts (iomoon compare --format html)
for l in 1ms 2ms; do
	"$IOMOON" run --quiet --format json --output "run-$l.json" "$LUA_DIR/latency.lua" $l >/dev/null 2>&1
done
"$IOMOON" compare run-1ms.json run-2ms.json --format html --output cmp.html 2>cmp.err
is $? 0 "compare --format html: exit 0"
# phase p: 1 ms in A, 2 ms in B (worse); phase q the other way round (better)
python3 -c '
import json
one, two = (json.load(open("run-%s.json" % l)) for l in ("1ms", "2ms"))
def run(p, q):
    d = json.loads(json.dumps(p)); q = json.loads(json.dumps(q["phases"][0])); q["name"] = "q"
    d["phases"].append(q); return d
json.dump(run(one, two), open("mix-a.json", "w")); json.dump(run(two, one), open("mix-b.json", "w"))'
"$IOMOON" compare mix-a.json mix-b.json --format html --output mix.html 2>/dev/null
grep -q '<tr class="worse"><td>p</td><td>IOPS</td>' mix.html && grep -q '<tr class="better"><td>q</td><td>IOPS</td>' mix.html
ok $? "compare --format html: p's IOPS row worse, q's better"

# ---- in a browser ----
case "$IOMOON" in *asan*)
	skip "browser: not under ASan (the suite's other run loads the pages)"
	done_testing; exit ;;
esac
if ! command -v chromium >/dev/null; then
	skip "browser: chromium is missing (make deps installs it)"
	done_testing; exit
fi
# every page in one chromium (tests/html/harness.html: each in an iframe,
# their DOMs after their scripts ran copied into its own), then a
# screenshot of the sweep
o=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
	--disable-component-update --disable-sync --user-data-dir="$TMP/chr" --virtual-time-budget=10000)
cp "$T/html/harness.html" "$TMP/harness.html"
pages='one.html&sweep.html%23all-phases&noisy.html&errors.html&intr.html&big.html&big.html%23all-overlay&long.html&cmp.html&durable.html&pts.html'
timeout 120 chromium "${o[@]}" --allow-file-access-from-files --dump-dom "file://$TMP/harness.html?$pages" >"$TMP/harness.dom" 2>"$TMP/chr.err"
grep -q '<body data-done="1"' "$TMP/harness.dom"; ok $? "chromium loaded every page"
timeout 120 chromium "${o[@]}" --screenshot="$TMP/sweep.png" --window-size=800,1000 "file://$TMP/sweep.html" >/dev/null 2>&1
timeout 120 chromium "${o[@]}" --screenshot="$TMP/mix.png" --window-size=1000,1400 "file://$TMP/mix.html" >/dev/null 2>&1
# the compare table as drawn: pixels of the worse rows' red and the better rows' green
out=$(python3 -c '
import sys; sys.path.insert(0, sys.argv[1]); from check import png_pixels
rows, w, bpp = png_pixels(sys.argv[2])
count = {(253, 226, 226): 0, (227, 244, 225): 0}
for line in rows:
    for x in range(w):
        px = tuple(line[x * bpp:x * bpp + 3])
        if px in count: count[px] += 1
print(count[(253, 226, 226)] > 1000, count[(227, 244, 225)] > 1000)' "$T/html" "$TMP/mix.png" 2>&1)
is "$out" "True True" "compare in chromium: the worse rows drawn red, the better rows green"
# check NAME URL EXPECTED-CHARTS [SHOT [all]]: sets $c to check.py's lines
check() {
	c=$(python3 "$T/html/check.py" "$TMP/${2%%#*}" "$TMP/harness.dom::$2" "${4:--}" ${5:-})
	get() { printf '%s\n' "$c" | sed -n "s/^$1=//p"; }
	is "$(get errors)" 0 "$1: no script error $(printf '%s' "$c" | grep -v '=' | head -3)"
	is "$(get charts)/$(get svg)/$(get drawn)" "$3/$3/$3" "$1: $3 charts, each with drawn data"
	is "$(get expect)" "$3" "$1: as many as the data asks for"
	is "$(get empty)" 0 "$1: no empty chart"
}
check one one.html 5
is "$(get iops_paths)" 3 "one: IOPS over time, a line for the phase and one per stream"
is "$(get phase_pct_paths)" 3 "one: the phase's percentiles, and its streams' beside them"
check sweep 'sweep.html#all-phases' 50 "$TMP/sweep.png" all
[ "$(get nonwhite)" -ge 30 ] && [ "$(get colours)" -ge 20 ]
ok $? "sweep: the screenshot is not blank ($(get nonwhite) per mille not white, $(get colours) colours)"
is "$(get overlay_paths)" 12 "sweep: the percentiles of the 12 phases overlaid"
is "$(get sweep_labels)" "QD 1,QD 2,QD 4,QD 8,QD 16,QD 32,QD 64,QD 128,QD 256,QD 512,QD 1024,QD 2048" "sweep: each point labelled with its QD"
check noisy noisy.html 34
is "$(get sweep_labels)" "QD 1,QD 2,QD 4,QD 8,QD 16,QD 32,QD 64,QD 128" "noisy: the points labelled, in QD order"
is "$(get sweep_in_order)" 1 "noisy: each label at its point, the mean line joining them in QD order"
is "$(get knee)/$(get knee_at)" "knee: QD 16/QD 16" "noisy: the knee marked at QD 16, not at QD 1 (the dips do not move it)"
like "$(get knee_note)" "^knee: noisy QD 16 \\(QD 16\\), 30000 IOPS: where the most IOPS" "noisy: the note under the chart names it"
check errors errors.html 15
grep -q "no I/O completed: no latency over time" "$TMP/harness.dom"; ok $? "errors: the phase without I/O says it has no latency over time instead of an empty chart"
check interrupted intr.html 5
check big big.html 42
# the page's script: from its first line to the last chart drawn (the load
# event, parsing the 1,000-row table included, is shown: it depends on the
# machine's load more than on the page)
ms=$(get ms)
[ "${ms%.*}" -lt 2000 ]; timed ok $? "1,000 phases: the page's script draws it in under 2 s ($ms ms; $(get load_ms) ms from navigation to the load event)"
is "$(get overlay_paths)" 20 "1,000 phases: the first 20 overlaid"
check big-overlay 'big.html#all-overlay' 42
is "$(get overlay_paths)" 1000 "1,000 phases: all overlaid on demand"
check compare cmp.html 9
is "$(get overlay_paths)" 2 "compare: the two runs' percentiles on one chart"
check long long.html 5
p=$(get iops_points) top=$(get iops_top)
[ "$p" -ge 1000 ] && [ "$p" -le 2000 ]; ok $? "5,000 intervals: IOPS over time drawn with 1,000 to 2,000 points ($p)"
[ "$top" -le 40 ]; ok $? "5,000 intervals: the one ten times higher is still drawn, at the top (y $top)"
check durable durable.html 10
like "$(get ops_rows)" '^wal: fdatasync after every write\|[0-9]+\|[0-9.]+\|[0-9.]+\|[0-9.]+\|0;wal: commit: write \+ fdatasync\|[0-9]+\|[0-9.]+\|[0-9.]+\|[0-9.]+\|0$' \
	"durable: the phase's section lists the WAL's fdatasyncs (count, mean, p99, max ms, errors) and its commits, once (not again for all streams)"
is "$(get lag_paths)" 2 "durable: the replay's lag over time drawn, its p99 and its maximum per interval"
like "$(get replay_text)" '^replay: 600 of 600 records, [0-9.]+ % on time, lag p99 [0-9.]+ ms \(missed 0, cut 0\)$' "durable: the replay's section says how faithful it was"
c=$(python3 "$T/html/check.py" "$TMP/pts.html" "$TMP/harness.dom::pts.html" -)
check pts pts.html "$(get expect)"
is "$(get pts_charts)/$(get pts_drawn)" "3/3" "pts: in chromium, the three PTS charts each drawn with its series"
done_testing
