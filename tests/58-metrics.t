#!/bin/bash
# Watching a run (doc/reports.md, "Watching a run"): --metrics serves
# OpenMetrics and Prometheus 0.0.4 text that Debian's prometheus scrapes
# and promtool accepts, and whose sums agree with the run's result;
# --live writes JSON lines that add up to the phase; --metrics-file is
# always whole while it is rewritten; counters grow across phases of one
# name; memory stays flat over many phases; a password in a name is left
# out and a name that is not UTF-8 keeps the text valid; clients holding
# connections keep no scraper out; bad input is refused before anything
# runs. Servers listen on 127.0.0.1 only and die with the test.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
"$IOMOON" quick --target t.dat --size 1m --ios 1 --engine null --quiet --format none
PIDS=""
finish() { for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; cleanup; }
trap finish EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# wait_http URL: until it answers (5 s at most)
wait_http() { for _ in $(seq 50); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done; return 1; }
sum_ios() { python3 -c 'import json, sys; print(sum(json.loads(l)["ios"] for l in open(sys.argv[1])))' "$1"; }
W="$LUA_DIR/watched.lua"

# Debian's prometheus, scraping 127.0.0.1:$mport every second (queried below)
pport="" mport=""
if command -v prometheus >/dev/null; then
	mport=$(free_port); pport=$(free_port)
	cat >prom.yml <<-YML
	global: { scrape_interval: 1s, scrape_timeout: 900ms }
	scrape_configs:
	  - job_name: iomoon
	    static_configs: [ { targets: ["127.0.0.1:$mport"] } ]
	YML
	prometheus --config.file=prom.yml --storage.tsdb.path="$TMP/prom" --web.listen-address="127.0.0.1:$pport" \
		--log.level=warn >prom.log 2>&1 &
	PIDS="$PIDS $!"
fi

# ---- one run, scraped by hand: both forms, the live lines, the textfile
port=$(free_port)
"$IOMOON" run --quiet --format none --metrics "127.0.0.1:$port" --live live.jsonl --metrics-file m.prom \
	"$W" t.dat 2500ms 2000 20s >run.out 2>run.err &
run_pid=$!
PIDS="$PIDS $run_pid"
wait_http "http://127.0.0.1:$port/metrics"; ok $? "the endpoint answers (127.0.0.1:$port)"
sleep 0.5
curl -s -D om.h -o om.txt "http://127.0.0.1:$port/metrics"
like "$(tr -d '\r' <om.h)" $'Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8' \
	"OpenMetrics by default, with its content type"
is "$(tail -1 om.txt)" "# EOF" "the OpenMetrics text ends in # EOF"
like "$(cat om.txt)" '# TYPE iomoon_ios counter' "OpenMetrics names the counter family without _total"
like "$(cat om.txt)" 'iomoon_ios_total\{phase="watched",host="[^"]+",op="read"\} [1-9]' "iomoon_ios_total counts while the phase runs"
curl -s -D t.h -o t.txt -H 'Accept: text/plain;version=0.0.4;q=0.9' "http://127.0.0.1:$port/metrics"
like "$(tr -d '\r' <t.h)" 'Content-Type: text/plain; version=0.0.4; charset=utf-8' "0.0.4 text when the scraper asks for text/plain"
out=$(promtool check metrics <t.txt 2>&1); ok $? "promtool check metrics accepts the 0.0.4 text"
[ -n "$out" ] && echo "$out" | sed 's/^/#   /'
for m in iomoon_bytes_total iomoon_errors_total 'iomoon_latency_seconds_bucket.*le="\+Inf"' iomoon_latency_seconds_sum \
	'iomoon_latency_quantile_seconds.*quantile="0.999"' 'iomoon_latency_quantile_seconds_count' '# TYPE iomoon_latency_quantile_seconds summary' iomoon_inflight 'iomoon_rate_target_iops.* 2000' \
	'iomoon_phase_info.*engine="null"' iomoon_phase_progress_ratio iomoon_run_start_time_seconds; do
	like "$(cat t.txt)" "$m" "the exposition has $m"
done
is "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/other")" 404 "another path: 404"
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary @t.txt "http://127.0.0.1:$port/metrics")" 405 \
	"another method (with a body): 405"
# the textfile, read in a loop while it is rewritten every 100 ms
python3 - m.prom >reads.out <<'PY'
import sys, time
bad = n = 0
end = time.time() + 1.0
while time.time() < end:
    t = open(sys.argv[1]).read()
    n += 1
    if not (t.startswith("# TYPE iomoon_run_start_time_seconds") and t.rstrip("\n").split("\n")[-1].startswith("iomoon_phase_progress_ratio")):
        bad += 1
print(n, bad)
PY
read -r nreads bad <reads.out
[ "$nreads" -gt 100 ] && [ "$bad" -eq 0 ]; ok $? "the textfile was whole in each of $nreads reads while rewritten ($bad not)"
wait_ios=$(for _ in $(seq 60); do grep -q '^ios ' run.out && break; sleep 0.1; done; sed -n 's/^ios //p' run.out)
final=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^iomoon_ios_total/ { s += $NF } END { print s }')
[ "${wait_ios:-0}" -gt 0 ] && [ "$final" = "$wait_ios" ]
ok $? "after the phase the endpoint's sum ($final) is the result's ios (${wait_ios:-none})"
# it serves 20 s after its phase, so that a loaded machine's scrape finds
# it still there; done with it, it is stopped (SIGTERM: status 1)
kill -TERM "$run_pid" 2>/dev/null
wait "$run_pid"
got=$(sum_ios live.jsonl 2>/dev/null)
[ "${wait_ios:-0}" -gt 0 ] && [ "$got" = "$wait_ios" ]; ok $? "the live lines' ios ($got) add up to the phase's"
python3 -c 'import json,sys; [json.loads(l) for l in open("live.jsonl")]'; ok $? "every live line is JSON"
like "$(head -1 live.jsonl)" '^\{"time":[0-9.]+,"phase":"watched","stream":null,"host":"[^"]+","t_s":0.1' \
	"a live line: time, phase, stream, host, interval end"
promtool check metrics <m.prom >/dev/null 2>&1; ok $? "promtool accepts the textfile"

# ---- streams: a line per stream and interval, a series per stream
"$IOMOON" run --quiet --format none --live - "$W" t.dat 1s 2000 0 streams >s.out 2>s.err
grep '^{' s.out >s.jsonl
for s in reads big; do
	want=$(sed -n "s/^stream $s //p" s.out)
	got=$(python3 -c 'import json,sys; print(sum(d["ios"] for d in map(json.loads, open("s.jsonl")) if d["stream"] == sys.argv[1]))' "$s")
	is "$got" "$want" "--live -: stream $s's lines add up to its ios ($want)"
done

# ---- counters grow across phases of one name; iomoon.metrics from a script
lua_tap_out=$("$IOMOON" run --quiet --format none "$LUA_DIR/again.lua" t.dat again.prom 2>again.err)
a=$(printf '%s\n' "$lua_tap_out" | awk '$1 == "ios" && $2 == "again" { s += $3 } END { print s }')
got=$(awk '/^iomoon_ios_total\{phase="again"/ { s += $NF } END { print s }' again.prom)
[ "${a:-0}" -gt 0 ] && [ "$got" = "$a" ]; ok $? "a phase run twice under one name: its counter ($got) holds both runs (${a:-none})"
like "$(grep -c '^iomoon_phase_info' again.prom)" '^2$' "two phase names, two series"
like "$lua_tap_out" 'metrics: already exporting' "a second iomoon.metrics is refused"
like "$lua_tap_out" "metrics: unknown field 'lisen' \(did you mean 'listen'\?\)" "an unknown field names the nearest"

# ---- under mpirun: rank 0 exports every rank's own figures (a rank label) and the
# cluster's (host="all"), each interval; started here, scraped after prometheus' part
# (while its phase runs: 12 s, long enough for prometheus' part on a busy
# machine), judged after the memory runs
mpi_ok=""
if [ "${IOMOON%asan*}" != "$IOMOON" ] || ! command -v mpirun >/dev/null ||
	! "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi '; then
	skip "mpirun (or MPI support) missing, or the ASan build (Open MPI's allocations are not ours)"
	skip "(the same)"
	skip "(the same)"
else
	mpi_ok=1
	cport=$(free_port)
	OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1 \
		timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$IOMOON" quick --engine null \
		--time 12s --rate 1000 --quiet --format json --output c.json --metrics "127.0.0.1:$cport" --metrics-file c.prom \
		--live c.jsonl >/dev/null 2>c.err &
	mpi_pid=$!
	PIDS="$PIDS $mpi_pid"
fi

ppid_="" # the run prometheus scrapes, still serving 30 s after its phase: stopped once queried
# ---- prometheus scrapes a running iomoon (started at the top: its scrape
# manager takes its targets some 5 s after it starts)
if [ -z "$pport" ]; then
	skip "prometheus is not installed (make deps)"
	skip "prometheus is not installed (make deps)"
else
	for _ in $(seq 150); do
		curl -s "http://127.0.0.1:$pport/api/v1/targets" | grep -q '"lastScrape":"0001' || break
		sleep 0.1
	done
	# the phase, then 30 s more of serving (stopped once queried): the queries run while iomoon
	# still serves (once it is gone, prometheus marks its series stale)
	"$IOMOON" run --quiet --format none --metrics "127.0.0.1:$mport" "$W" t.dat 2s 1000 30s >p.out 2>p.err &
	ppid_=$!
	PIDS="$PIDS $ppid_"
	for _ in $(seq 100); do grep -q '^ios ' p.out && break; sleep 0.1; done
	sleep 1.5 # a scrape after the phase's end
	want=$(sed -n 's/^ios //p' p.out)
	got=$(curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode 'query=sum(iomoon_ios_total)' |
		python3 -c 'import json,sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")')
	# one interval's I/Os: 1000 IOPS x 100 ms
	awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(a != "none" && d <= 100 && d >= -100) }'
	ok $? "prometheus: sum(iomoon_ios_total) is $got, the run's ios $want (within one interval's 100)"
	n=$(curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode 'query=count(count_over_time(iomoon_ios_total[1m]))' |
		python3 -c 'import json,sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
	[ "$n" -ge 2 ]; ok $? "prometheus holds the series it scraped ($n)"
	[ "$n" -ge 2 ] || sed 's/^/#   /' prom.log
	# every query of the Grafana dashboard (doc/grafana-iomoon.json) runs, and finds series
	bad=$(python3 - "$ROOT/doc/grafana-iomoon.json" "$pport" <<-'PY'
	import json, sys, urllib.parse, urllib.request
	d = json.load(open(sys.argv[1]))
	bad = []
	for p in d["panels"]:
	    found = 0
	    for t in p["targets"]:
	        q = t["expr"].replace("$__rate_interval", "1m").replace("$phase", ".*").replace("$host", ".*")
	        url = "http://127.0.0.1:%s/api/v1/query?%s" % (sys.argv[2], urllib.parse.urlencode({"query": q}))
	        r = json.load(urllib.request.urlopen(url))
	        if r["status"] != "success":
	            bad.append(p["title"] + ": " + q)
	        found += len(r["data"]["result"])
	    if not found:
	        bad.append(p["title"] + ": no series")
	print("; ".join(bad))
	PY
	)
	is "$bad" "" "every query of the Grafana dashboard runs in prometheus, and every panel finds the run's series"
	kill -TERM "$ppid_" 2>/dev/null
fi

# ---- mpirun (started above): rank 0's endpoint scraped while its phase runs
if [ -n "$mpi_ok" ]; then
	# rank_ios FILE RANK: the sum of that rank's own iomoon_ios_total
	rank_ios() { awk -v r="rank=\"$2\"" '/^iomoon_ios_total\{/ && index($0, r) { s += $NF; n++ } END { print n ? s : -1 }' "$1"; }
	wait_http "http://127.0.0.1:$cport/metrics"
	a1=-1
	for _ in $(seq 60); do # until rank 1's first interval is merged
		curl -s -o s1.txt "http://127.0.0.1:$cport/metrics"
		a1=$(rank_ios s1.txt 1)
		[ "$a1" -gt 0 ] && break
		sleep 0.1
	done
	b1=$a1 a0=$(rank_ios s1.txt 0) b0=$a0
	# until both have grown: rank 0's own series moves at its own tick,
	# rank 1's with the merge after it, so one scrape may see only one move
	for _ in $(seq 60); do
		sleep 0.1
		curl -s -o s2.txt "http://127.0.0.1:$cport/metrics"
		b1=$(rank_ios s2.txt 1) b0=$(rank_ios s2.txt 0)
		[ "$b1" -gt "$a1" ] && [ "$b0" -gt "$a0" ] && break
	done
	if [ ! -s s1.txt ] && ! kill -0 "$mpi_pid" 2>/dev/null; then
		skip "the machine was too slow: the 12 s phase under mpirun ended before its endpoint was scraped"
	else
		[ "$a1" -gt 0 ] && [ "$b1" -gt "$a1" ] && [ "$b0" -gt "$a0" ] && [ "$a0" -gt 0 ] &&
			grep -q '^iomoon_phase_info{.*rank="1".*running="yes"' s2.txt
		ok $? "mpirun -n 2: rank 0's endpoint shows both ranks' own I/Os while the phase runs and they grow (rank 0: $a0 then $b0, rank 1: $a1 then $b1)"
	fi
fi

# ---- memory flat over many phases, and over many intervals (peak RSS,
# /usr/bin/time): four runs started here, while mpirun ends (peak RSS
# does not depend on the load), judged after it
mem_ok=""
case "$IOMOON" in
*asan*) ;;
*)
	mem_ok=1
	rss() { /usr/bin/time -f %M "$IOMOON" run --quiet --format none --metrics-file "mem$1.prom" --live "mem$1.jsonl" \
		--metrics 127.0.0.1:0 "$LUA_DIR/many.lua" t.dat "$1" 2>&1 >/dev/null | tail -1 >"rss$1"; }
	# past the 64 series kept, the oldest finished go: 66 phases against 132 (at once)
	# one phase of 50 intervals of 10 ms against one of 400
	lrss() { /usr/bin/time -f %M "$IOMOON" run --quiet --format none --metrics-file "l$1.prom" --live "l$1.jsonl" \
		--metrics 127.0.0.1:0 "$LUA_DIR/long.lua" t.dat "$1" 2>&1 >/dev/null | tail -1 >"lrss$1"; }
	rss 66 & p1=$!
	rss 132 & p2=$!
	lrss 500ms & p3=$!
	lrss 4s & p4=$!
	PIDS="$PIDS $p1 $p2 $p3 $p4"
	;;
esac

[ -n "$ppid_" ] && wait "$ppid_"

# ---- the memory runs' peaks
if [ -z "$mem_ok" ]; then
	skip "peak RSS under ASan's quarantine says nothing"; skip "(the same)"; skip "(the same)"
else
	wait "$p1" "$p2" "$p3" "$p4"
	c=$(cat lrss500ms) d=$(cat lrss4s)
	n=$(wc -l <l4s.jsonl)
	# 400 intervals on a quiet machine; a loaded one may merge some, and
	# 100 is still twice the short run's 50
	[ "$n" -ge 100 ] && [ "$d" -le $((c * 105 / 100)) ]
	ok $? "one phase of $n intervals peaks at $d KiB, of $(wc -l <l500ms.jsonl) at $c KiB (within 5 %)"
	a=$(cat rss66) b=$(cat rss132)
	lines=$(grep -c '"phase":"phase 132"' mem132.jsonl 2>/dev/null)
	[ "${lines:-0}" -ge 1 ]; ok $? "the 132nd phase was exported too (${lines:-no} live lines)"
	[ "$b" -le $((a * 11 / 10)) ]; ok $? "132 phases (264 intervals) peak at $b KiB, 66 at $a KiB (within 10 %)"
fi

# (rank 0's endpoint was scraped while the phase ran; the memory runs above
# overlapped its end: its totals now)
if [ -n "$mpi_ok" ]; then
	wait "$mpi_pid"
	read -r all own own1 <<<"$(python3 -c 'import json; p = json.load(open("c.json"))["phases"][0]; print(p["ios"], p["hosts"][0]["ios"], p["hosts"][1]["ios"])' 2>/dev/null)"
	got_all=$(awk '/^iomoon_ios_total\{.*host="all"/ { s += $NF } END { print s + 0 }' c.prom 2>/dev/null)
	got_own=$(rank_ios c.prom 0) got_own1=$(rank_ios c.prom 1)
	[ "${all:-0}" -gt 0 ] && [ "$got_all" = "$all" ] && [ "$got_own" = "$own" ] && [ "$got_own1" -gt 0 ] &&
		[ "$got_own1" -le "$own1" ]
	ok $? "mpirun -n 2: the textfile's host=\"all\" series count the cluster's $all I/Os ($got_all), rank 0's own its $own ($got_own), rank 1's at most its $own1 ($got_own1)"
	live_all=$(python3 -c 'import json; print(sum(d["ios"] for d in map(json.loads, open("c.jsonl")) if d["host"] == "all"))' 2>/dev/null)
	is "$live_all" "$all" "mpirun -n 2: the merged intervals' live lines add up to the cluster's I/Os"
fi

# ---- names that quote a URL with a password, or are not UTF-8: the
# password is left out of every label, line and the textfile (as from the
# report), and promtool accepts the text whatever the bytes
PW='Zq9-s3cret-Pw'
U="iscsi://alice%$PW@127.0.0.1:9/iqn.2026-11.org.example:chap/1"
cat >names.lua <<'LUA'
local iomoon = require "iomoon"
local U = ...
iomoon.run { name = "job for " .. U, engine = "null", duration = "3s", interval = "250ms",
	streams = { { name = "s " .. U, bs = "4k" }, { name = "pw=Zq9-s3cret-Pw", bs = "4k" },
		{ name = "bad\255byte Gr\246\223e", bs = "8k" } } }
LUA
port=$(free_port)
"$IOMOON" run --quiet --format json --output names.json --metrics "127.0.0.1:$port" --metrics-file names.prom \
	--live names.jsonl names.lua "$U" >names.out 2>names.err &
names_pid=$!
PIDS="$PIDS $names_pid"
wait_http "http://127.0.0.1:$port/metrics"
for _ in $(seq 60); do grep -q 'stream=.*byte' names.prom 2>/dev/null && break; sleep 0.1; done
curl -s -H 'Accept: text/plain' -o names.txt "http://127.0.0.1:$port/metrics"
curl -s -o names.om "http://127.0.0.1:$port/metrics"
out=$(promtool check metrics <names.txt 2>&1); ok $? "a stream name that is not UTF-8: promtool accepts the scrape"
[ -n "$out" ] && echo "$out" | sed 's/^/#   /'
like "$(cat names.txt)" $'stream="bad\xef\xbf\xbdbyte Gr\xef\xbf\xbd\xef\xbf\xbde"' "... each byte that is not UTF-8 is U+FFFD in the label"
wait "$names_pid"
is "$?" 0 "the run with such names: exit 0"
out=$(promtool check metrics <names.prom 2>&1); ok $? "... promtool accepts the textfile too"
[ -n "$out" ] && echo "$out" | sed 's/^/#   /'
python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' names.jsonl; ok $? "... and every --live line parses"
is "$(grep -l -- "$PW" names.txt names.om names.prom names.jsonl names.json names.out names.err | tr '\n' ' ')" "" \
	"a password in a phase or stream name: on neither form of the endpoint, the textfile, --live nor the report"
like "$(cat names.txt)" 'phase="job for iscsi://alice@127.0.0.1:9/[^"]*",stream="s iscsi://alice@127.0.0.1:9/' \
	"... the names read as the report shows them"
like "$(cat names.txt)" 'stream="pw="' "... a password given on the command line is left out wherever it stands"
# two phases whose names read alike (bytes that are not UTF-8): one series,
# not two of one label set (before: two, which a server takes as duplicates)
"$IOMOON" run --quiet --format none --metrics-file alike.prom "$LUA_DIR/alike.lua"
is "$(grep -c $'^iomoon_ios_total{phase="p\xef\xbf\xbd",host="[^"]*",op="read"}' alike.prom)" 1 \
	"two phases named alike as shown: one series in the textfile"

# ---- clients that hold connections: 24 (8 each from 127.0.0.1, .2 and .3)
# that send a header line every 0.5 s and never end their request; a
# scrape from 127.0.0.1 beside them every 0.5 s is answered, each within 2 s
cat >slow.py <<'PY'
import socket, sys, time
port, dur = int(sys.argv[1]), float(sys.argv[2])
socks = []
for i in range(24):
    s = socket.socket(); s.settimeout(2)
    try:
        s.bind(('127.0.0.%d' % (1 + i // 8), 0)); s.connect(('127.0.0.1', port))
        s.sendall(b'GET /metrics HTTP/1.1\r\n'); socks.append(s)
    except OSError:
        pass
def scrape():
    t = time.time()
    try:
        c = socket.create_connection(('127.0.0.1', port), timeout=2)
        c.settimeout(max(0.1, 2 - (time.time() - t)))
        c.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
        data = b''
        while True:
            b = c.recv(65536)
            if not b: break
            data += b
        c.close()
        ok = data.startswith(b'HTTP/1.1 200') and data.rstrip().endswith(b'# EOF')
        return time.time() - t if ok and time.time() - t <= 2 else None
    except OSError:
        return None
n = answered = k = 0
t0 = time.time()
while time.time() - t0 < dur:
    time.sleep(0.5)
    for s in socks:
        try: s.sendall(b'X-%d: y\r\n' % k)
        except OSError: pass
    k += 1
    n += 1
    answered += scrape() is not None
print(len(socks), n, answered)
PY
port=$(free_port)
"$IOMOON" quick --engine null --time 10 --metrics "127.0.0.1:$port" --quiet --format none >slow.out 2>slow.err &
slow_pid=$!
PIDS="$PIDS $slow_pid"
wait_http "http://127.0.0.1:$port/metrics"
read -r nconn nscrape nanswered <<<"$(timeout 60 python3 slow.py "$port" 6)"
[ "${nconn:-0}" -eq 24 ] && [ "${nscrape:-0}" -ge 3 ] && [ "$nanswered" = "$nscrape" ]
ok $? "24 slow clients hold connections: every scrape beside them answered within 2 s (${nanswered:-0} of ${nscrape:-0}; ${nconn:-0} connected)"
wait "$slow_pid"
is "$?" 0 "... and the run went on (exit 0)"

# ---- bad input: exit 2, the message names the option, nothing created
refused() { # refused WHAT REGEX ARGS...
	local what=$1 re=$2
	shift 2
	rm -f new.dat
	"$IOMOON" quick --target new.dat --size 1m --engine null --time 1s --quiet "$@" >bad.out 2>bad.err
	is "$?" 2 "$what: exit 2"
	like "$(cat bad.err)" "$re" "$what: the message says why"
	[ ! -e new.dat ] && [ ! -e bad.jsonl ]; ok $? "$what: nothing created"
}
python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' >busy.port &
PIDS="$PIDS $!"
for _ in $(seq 50); do [ -s busy.port ] && break; sleep 0.1; done
refused "a port in use" "^iomoon quick: --metrics: 127.0.0.1:$(cat busy.port): Address already in use" \
	--metrics "127.0.0.1:$(cat busy.port)" --live bad.jsonl
refused "an address not local" "--metrics: 192.0.2.1:9464 is not a local address.*--metrics-public" --metrics 192.0.2.1:9464
refused "no ADDR:PORT" "--metrics: 'nine' is not ADDR:PORT" --metrics nine
refused "a port past 65535" "--metrics: '127.0.0.1:70000' is not ADDR:PORT" --metrics 127.0.0.1:70000
refused "--metrics-public alone" "--metrics-public: give --metrics" --metrics-public
refused "a textfile in no folder" "--metrics-file: '$TMP/no/m.prom': directory '$TMP/no' does not exist" \
	--metrics-file "$TMP/no/m.prom"
refused "a live file in no folder" "--live: '$TMP/no/l.jsonl': directory" --live "$TMP/no/l.jsonl"
refused "a public address without the flag, from 0.0.0.0" "is not a local address" --metrics 0.0.0.0:9464
# --live - beside a report that is a document on stdout: the lines would break it
refused "--live - with --format json on stdout" "^iomoon quick: --live -: standard output carries the json report.*--output FILE" \
	--live - --format json
refused "--live - with --format csv on stdout" "^iomoon quick: --live -: standard output carries the csv report" --live - --format csv
# standard output by another name (before: the lines broke the report, or
# the textfile was renamed over the name: /dev/stdout replaced, as root)
refused "--live /dev/stdout with --format json on stdout" \
	"^iomoon quick: --live /dev/stdout: standard output carries the json report" --live /dev/stdout --format json
refused "--live - with --output /dev/stdout" "^iomoon quick: --live -: standard output carries the json report" \
	--live - --format json --output /dev/stdout
refused "--metrics-file -" "^iomoon quick: --metrics-file: '-' is standard output; the textfile is rewritten by renaming" \
	--metrics-file -
ok "$([ ! -e "$TMP/-" ]; echo $?)" "--metrics-file -: no file named - made"
if unshare -m true 2>/dev/null; then
	# in a mount namespace of its own, over a /dev of its own: a binary
	# that renames over /dev/stdout harms nothing of the machine's
	out=$(cd "$TMP" && unshare -m bash -c 'mount --make-rprivate / && mount -t tmpfs tmpfs /dev &&
		ln -s /proc/self/fd/1 /dev/stdout && ln -s /proc/self/fd /dev/fd && : >/dev/null &&
		"$0" quick --engine null --time 0.5 --metrics-file /dev/stdout --format none --quiet >/dev/null 2>&1
		echo "$? $(stat -c %F /dev/stdout)"' "$IOMOON")
	is "$out" "2 symbolic link" "--metrics-file /dev/stdout: exit 2, /dev/stdout left a symbolic link"
else
	skip "no unshare -m here"
fi
echo "theirs" >link.target; ln -sf link.target link.prom
"$IOMOON" run --quiet --format none "$LUA_DIR/linkfile.lua" "$TMP/link.prom" >link.out 2>link.err
is "$? $(stat -c %F link.prom) $(cat link.target)" "2 symbolic link theirs" \
	"a script's metrics.file a symbolic link: exit 2, the link and its file left as they were"
like "$(cat link.err)" "metrics\.file: .*link\.prom is a symbolic link, not a regular file: the textfile is written beside it and renamed over it" \
	"  saying why"
# a script's metrics.live through a planted link, or a FIFO (before: the
# link's file emptied and written; the run hung on the FIFO, SIGTERM too)
"$IOMOON" run --quiet --format none "$LUA_DIR/livefile.lua" "$TMP/link.prom" >link.out 2>link.err
is "$? $(stat -c %F link.prom) $(cat link.target)" "2 symbolic link theirs" \
	"a script's metrics.live a symbolic link: exit 2, the file it names left as it was"
like "$(cat link.err)" "metrics\.live: .*link\.prom: .*a symbolic link: give the path of the file itself" "  saying why"
mkfifo live.fifo
timeout 10 "$IOMOON" run --quiet --format none "$LUA_DIR/livefile.lua" "$TMP/live.fifo" >fifo.out 2>fifo.err
is "$?" 2 "a script's metrics.live a FIFO no one reads: exit 2, not a wait for ever"
like "$(cat fifo.err)" "metrics\.live: .*live\.fifo: .*a FIFO no one reads" "  saying why"
"$IOMOON" quick --engine null --time 1 --live - --format json --output lr.json --quiet >lr.out
rc=$?
python3 -c 'import json, sys; json.load(open(sys.argv[1])); assert [json.loads(l) for l in open(sys.argv[2])]' lr.json lr.out
is "$rc:$?" "0:0" "--live - with the json report in --output: both parse"
printf 'local iomoon = require "iomoon"\niomoon.metrics { live = "-" }\niomoon.run { name = "p", engine = "null", duration = "1s", bs = "4k" }\n' >lm.lua
"$IOMOON" run --format json --quiet lm.lua >lm.out 2>lm.err
is "$?:$(cat lm.err):$(wc -c <lm.out)" '2:iomoon: metrics.live: "-" is standard output, which carries the json report (give a path):0' \
	"a script's iomoon.metrics{live = \"-\"} beside the json report on stdout: exit 2, nothing on stdout"
done_testing
