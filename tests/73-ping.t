#!/bin/bash
# iomoon ping against Debian's ioping 1.3 (issue 18): the same command lines
# on the same file and directory, alternated; the same request counts, line
# shapes and raw fields (how close their latencies are: make bench,
# BENCH_ONLY=ping); a directory's temporary file removed (kept with -k, also
# on Ctrl-C); -J's JSON as ioping prints it; -Y and -y open as ioping
# opens (strace); ioping's other options refused by name; ioping's figures.
. "$(dirname "$0")/lib.sh"
if ! command -v ioping >/dev/null; then echo "1..0 # SKIP Debian's ioping is not installed (make deps)"; exit 0; fi

F="$TMP/f.dat"
D="$TMP/d"
mkdir -p "$D"
dd if=/dev/urandom of="$F" bs=1M count=16 status=none
sync "$F"

# ioping's figures (print_suffix): units, and 0, 1 or 2 decimals
out=$("$IOMOON" run --format none "$LUA_DIR/format.lua")
is "$out" "$(printf '310.8 us\t189.8 us\t3.72 ms\t305 ns\t0 ns\t1.00 s\t12.0 ms\t4 KiB\t0 B\t12 KiB\t17.6 MiB\t252.0 GiB\t1 GiB\t2\t4.51 k\t336.6 k\t736')" \
	"ioping's figures: the unit, then 0 decimals for whole, 1 from 10 units, else 2"

# request lines, header and statistics (moved from 70-library.t)
out=$("$IOMOON" ping "$F" -c 3 -i 0.05); ok $? "ping FILE -c 3 exits 0"
H="$F \\([a-z0-9]+ [^ ]+ [0-9.]+ [KMGT]iB\\)"
like "$(echo "$out" | sed -n 1p)" "^4 KiB <<< $H: request=1 time=[0-9.]+ (ns|us|ms)( \\(warmup\\))$" "ping: ioping's request line, the first a warm-up"
like "$(echo "$out" | sed -n 2p)" "^4 KiB <<< $H: request=2 time=[0-9.]+ (ns|us|ms)$" "ping: then counted requests"
fsdev=$(df --output=fstype,source "$F" | tail -1 | awk '{print $1" "$2}')
like "$(echo "$out" | sed -n 1p)" "\\($fsdev [0-9.]+ GiB\\)" "ping names the filesystem and device of the file ($fsdev)"
like "$out" "--- $H ioping statistics ---" "ping: ioping's statistics header"
like "$out" '2 requests completed in [0-9.]+ (us|ms), 8 KiB read, [0-9.]+( k)? iops, [0-9.]+ (KiB|MiB|GiB)/s' "ping: ioping's totals"
like "$out" 'generated 3 requests in [0-9.]+ ms, 12 KiB, [0-9.]+ iops, [0-9.]+ (KiB|MiB)/s' "ping: every request over the wall time"
like "$out" 'min/avg/max/mdev = [0-9.]+ (ns|us|ms) / [0-9.]+ (ns|us|ms) / [0-9.]+ (ns|us|ms) / [0-9.]+ (ns|us|ms)$' "ping: ioping's min/avg/max/mdev"
python3 - "$out" <<'PY'
import re, sys
out = sys.argv[1]
def ns(v, u): return float(v) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[u]
reqs = [ns(v, u) for v, u in re.findall(r"request=[23] time=([0-9.]+) (ns|us|ms)", out)]
v, u = re.search(r"2 requests completed in ([0-9.]+) (ns|us|ms)", out).groups()
wall_v, wall_u = re.search(r"generated 3 requests in ([0-9.]+) (ms|s)", out).groups()
assert abs(ns(v, u) - sum(reqs)) <= 0.02 * sum(reqs) + 200, (ns(v, u), reqs)
assert ns(wall_v, wall_u) >= 100e6, "two 50 ms gaps at least"
m = re.search(r"mdev = .* / .* / .* / ([0-9.]+) (ns|us|ms)", out)
mean = sum(reqs) / 2
pop = (sum((x - mean) ** 2 for x in reqs) / 2) ** 0.5
assert abs(ns(*m.groups()) - pop) <= 0.02 * pop + 200, (ns(*m.groups()), pop)
PY
ok $? "ping: 'completed in' is the time in the counted requests, 'generated in' the wall time, mdev the population deviation"

# the same line shapes as ioping, line for line: every figure with its unit
# made N, and ioping's (fast)/(slow) notices dropped
shape() { sed -E 's/[0-9]+(\.[0-9]+)?( (ns|us|ms|s|min|hour|B|KiB|MiB|GiB|TiB|PiB|k|M|G|T))?/N/g; s/ \((fast|slow)\)$//'; }
for args in "-c 5 -i 0 $F" "-c 5 -i 0 -D $F" "-c 4 -i 0 $D" "-c 4 -i 0 -W $D" "-c 3 -i 0 -L -D $D" "-c 6 -i 0 -q $D"; do
	a=$(cd "$TMP" && ioping $args | shape); b=$("$IOMOON" ping $args | shape)
	is "$b" "$a" "the same lines as ioping's: ping $args"
done
a=$(ioping -c 4 -i 0 "$D" | sed -n 1p); b=$("$IOMOON" ping -c 4 -i 0 "$D" | sed -n 1p)
is "${b%%: request=*}" "${a%%: request=*}" "a directory's header as ioping's, word for word: ${a%%: request=*}"

# raw statistics: -B (one line) and -p N (a line every N counted requests)
fields() { awk '{print NF, $1, $9}'; }
for args in "-B -c 10 -i 0 $F" "-B -c 10 -i 0 $D" "-q -p 3 -c 7 -i 0 $F" "-p 4 -B -c 9 -i 0 $D"; do
	a=$(ioping $args | fields); b=$("$IOMOON" ping $args | fields)
	is "$b" "$a" "raw lines as ioping's (fields, counted, all requests): ping $args"
done
b=$("$IOMOON" ping -B -c 10 -i 0 "$F")
python3 - "$b" <<'PY'
import sys
f = [float(x) for x in sys.argv[1].split()]
valid, tsum, iops, bps, mn, avg, mx, mdev, count, wall = f
assert valid == 9 and count == 10, f
assert abs(iops - 1e9 * valid / tsum) <= 1 and abs(bps - iops * 4096) <= 4096, f
assert mn <= avg <= mx and abs(avg - tsum / valid) <= 1 and wall >= tsum, f
PY
ok $? "-B's fields mean what ioping's mean: iops = counted / time in them, bytes/s = iops x 4 KiB, min <= avg <= max, wall >= time"

# -p 1: a raw line per request, as ioping prints them. How close the two
# tools' request times are is measured in `make bench` (BENCH_ONLY=ping),
# not held to a bound here: on a shared VM one run's average can be 4x the
# next one's.
for target in "-D $F" "$D"; do
	a=$(ioping -q -p 1 -c 41 -i 0 $target | awk '{print NF}' | sort -u | paste -sd' ')
	out=$("$IOMOON" ping -q -p 1 -c 41 -i 0 $target)
	is "$(printf '%s\n' "$out" | wc -l) $(printf '%s\n' "$out" | awk '{print NF}' | sort -u | paste -sd' ')" "40 $a" \
		"ping -q -p 1 -c 41 $target: 40 raw lines of ioping's $a fields"
	printf '%s\n' "$out" | awk '$6 <= 0 || $1 != 1 { bad = 1 } END { exit bad }'
	ok $? "  each line: 1 request, a time above 0 ns"
done

# -R: as fast as possible, the summary only
a=$(ioping -R -w 1 "$D" | shape); out=$("$IOMOON" ping -R -w 1 "$D")
is "$(echo "$out" | shape)" "$a" "the same lines as ioping's: ping -R -w 1 DIR"
a=$(ioping -R -w 0.5 -S 4m -B "$D" | awk '{print NF}'); b=$("$IOMOON" ping -R -w 0.5 -S 4m -B "$D" | awk '{print NF}')
is "$b" "$a" "the same raw line as ioping's: ping -R -w 0.5 -S 4m -B DIR ($b fields)"
like "$out" "generated [0-9.]+( k)? requests in 1\\.[0-9]+ s" "-R -w 1: one second of requests"
ls "$D" | grep -q . ; is $? 1 "no temporary file left in the directory after the runs"

# -k keeps ioping.tmp (1 MiB), and the next run reuses it
"$IOMOON" ping -k -c 2 -i 0 -q "$D" >/dev/null
is "$(ls "$D")" "ioping.tmp" "-k: the directory keeps ioping.tmp, as ioping names it"
is "$(stat -c %s "$D/ioping.tmp")" 1048576 "-k: ioping's working set, 1 MiB"
sum=$(md5sum <"$D/ioping.tmp")
"$IOMOON" ping -k -c 2 -i 0 -q "$D" >/dev/null
is "$(md5sum <"$D/ioping.tmp")" "$sum" "-k: the next run reuses it as it is"
rm -f "$D/ioping.tmp"

# Ctrl-C: statistics, exit 0, and the temporary file removed
"$IOMOON" ping -i 1 "$D" >"$TMP/int.out" 2>&1 &
pid=$!
for _ in $(seq 50); do ls "$D" | grep -q ioping.tmp && break; sleep 0.1; done
had=$(ls "$D")
sleep 0.3
kill -INT $pid; wait $pid; rc=$?
is "$rc" 0 "SIGINT: exit 0, as ioping"
like "$had" '^ioping\.tmp\.[A-Za-z0-9]{6}$' "while it runs, the temporary file is ioping.tmp.XXXXXX ($had)"
is "$(ls "$D")" "" "after SIGINT the temporary file is gone"
like "$(cat "$TMP/int.out")" 'generated 1 requests in' "and the statistics were printed"

# refusals: by name, exit 2, nothing printed or created, the file unchanged
sum=$(md5sum <"$F")
for opt in -G -N -H -I -b1 -e1 -l1m -r10 -t1us -T1s -P1s -hipri -x --frob; do
	err=$("$IOMOON" ping $opt -c 1 "$D" 2>&1 >"$TMP/ref.out"); rc=$?
	is "$rc:$(cat "$TMP/ref.out")" "2:" "ping $opt: exit 2, nothing on stdout"
	like "$err" "^iomoon ping: (unknown option )?${opt%%[0-9]*}" "ping $opt: refused by name ($err)"
done
err=$("$IOMOON" ping -W -c 1 "$F" 2>&1); is $? 2 "-W on a file: exit 2 (ioping: think twice)"
like "$err" '-W on the file .*: think twice, then use -WWW' "-W on a file: ioping's rule, named"
err=$("$IOMOON" ping -WWW -c 1 "$F" 2>&1); is $? 2 "-WWW on a file iomoon did not create: exit 2"
like "$err" 'needs --allow-write' "-WWW: iomoon's rule, named"
is "$(md5sum <"$F")" "$sum" "the file is unchanged"
is "$(ls "$D")" "" "and nothing was created in the directory"
out=$("$IOMOON" ping -W -c 3 -i 0 "$D"); ok $? "-W on a directory: writes to the temporary file"
like "$out" '>>> .*request=3' "-W: ioping's >>> lines"
like "$out" '2 requests completed in .*, 8 KiB written,' "-W: 'written' in the totals"

# other mistakes: exit 2, one line naming the option or path
err=$("$IOMOON" ping "$F" -S 1k 2>&1); is $? 2 "ping -S smaller than a request: exit 2"
like "$err" "^iomoon ping: -s: 4096 bytes of requests do not fit in 1024 bytes" "names -s and the working set"
err=$("$IOMOON" ping "$TMP/nothere" 2>&1); is $? 2 "ping of a missing path: exit 2"
like "$err" "^iomoon ping: $TMP/nothere does not exist" "names the path"
err=$("$IOMOON" ping "$F" -c 1 -D -s 1000 2>&1); is $? 2 "ping -D -s 1000: exit 2"
like "$err" '-s: 1000 is not a multiple of the 512-byte sector' "names the size and the sector"
out=$("$IOMOON" ping "$F" -c 2 -i 0 -s 1000); ok $? "buffered reads (the default) of any size"
like "$out" '^1000 B <<< ' "ioping's size of 1000 bytes"
err=$("$IOMOON" ping -c x "$F" 2>&1); is $? 2 "-c x: exit 2"
like "$err" "^iomoon ping: -c: 'x' is not a whole count" "names -c"
err=$("$IOMOON" ping -i 1y "$F" 2>&1); is $? 2 "-i 1y: exit 2"
like "$err" "^iomoon ping: -i: '1y' is not a time" "names -i"
err=$("$IOMOON" ping "$F" "$D" 2>&1); is $? 2 "two paths: exit 2"

# -A: one request at a time through an asynchronous engine
out=$("$IOMOON" ping -A -c 3 -i 0 "$D"); ok $? "-A runs"
like "$out" '2 requests completed in [0-9.]+ (us|ms), 8 KiB read' "-A: ioping's totals"
# ioping's suffixes and long names
out=$("$IOMOON" ping -count 2 --interval=0 -size 1sector -work-size 1m "$F"); ok $? "long names, one dash or two, and ioping's size suffixes"
like "$out" '^512 B <<< .*request=2' "-size 1sector is 512 bytes"

# -J: ioping's JSON, object for object: the same text once every number is
# N (the same objects, keys, order and number formats), and the same
# target, request numbers, warm-ups and counts
for args in "-c 3 -i 0 $F" "-c 3 -i 0 -W $D" "-c 5 -i 0 -q -p 2 $D" "-B -c 4 -i 0 -D $F"; do
	(cd "$TMP" && ioping -J $args) >"$TMP/a.json"; "$IOMOON" ping -J $args >"$TMP/b.json"
	is "$(sed -E 's/[0-9]+(\.[0-9]+)?/N/g' "$TMP/b.json")" "$(sed -E 's/[0-9]+(\.[0-9]+)?/N/g' "$TMP/a.json")" \
		"-J: the same JSON as ioping's, numbers aside: ping -J $args"
	python3 - "$TMP/a.json" "$TMP/b.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def same(x):
    io, st, ld = x.get("io", {}), x.get("stat", {}), x.get("load", {})
    return (x["target"], io.get("request"), io.get("operation"), io.get("size"), io.get("ignored"),
            st.get("count"), st.get("size"), ld.get("count"), ld.get("size"))
assert [same(x) for x in a] == [same(x) for x in b], ([same(x) for x in a], [same(x) for x in b])
PY
	ok $? "-J: the same target, requests, warm-up and counts as ioping's: ping -J $args"
done
python3 - "$TMP/b.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))[-1]
st, ld = s["stat"], s["load"]
assert st["count"] == 3 and ld["count"] == 4 and st["size"] == 3 * 4096, s
assert abs(st["iops"] - 1e9 * st["count"] / st["time"]) <= 1 and st["min"] <= st["avg"] <= st["max"], s
assert ld["time"] >= st["time"], s
PY
ok $? "-J's statistics mean ioping's: 3 counted of 4, iops = counted / time in them, min <= avg <= max"

# -Y and -y: the file opened O_SYNC or O_DSYNC, as ioping opens it (strace)
if command -v strace >/dev/null; then
	flags() { # flags TOOL ARGS...: the open flags of the last open of $F
		strace -f -qq -e trace=openat -o "$TMP/open.trace" "$@" >/dev/null 2>&1
		grep -F "\"$F\"" "$TMP/open.trace" | tail -1 | grep -oE 'O_(SYNC|DSYNC)' | paste -sd, -
	}
	for o in -Y -y ""; do
		is "$(flags "$IOMOON" ping $o -c 2 -i 0 -q "$F")" "$(flags ioping $o -c 2 -i 0 -q "$F")" \
			"ping ${o:-without -Y or -y}: opened with ioping's flags ($(flags ioping $o -c 2 -i 0 -q "$F"))"
	done
	is "$(flags "$IOMOON" ping -y -D -c 1 -q "$F")" "O_DSYNC" "ping -y -D: O_DSYNC, direct too"
else
	skip "strace is missing: the open flags of -Y and -y"
fi
err=$("$IOMOON" ping -A -Y -c 1 "$D" 2>&1); is $? 2 "-A -Y (reads): exit 2"
like "$err" "^iomoon ping: -Y with -A: " "-A -Y: names -Y"

# t:probe, what ping's requests go through: one descriptor, timed calls,
# its checks (a file iomoon did not create is not written; past the end,
# unaligned direct requests: input errors), and the bytes on disk
cp "$F" "$TMP/p.dat"
out=$("$IOMOON" run --format none "$LUA_DIR/probe.lua" "$TMP/p.dat" "$TMP/new.dat" 2>&1)
ok $? "t:probe: reads and writes, timed"
like "$out" 'probe: 4096 bytes at offset 16776704 are past the end' "probe: a request past the end is refused, naming it"
like "$out" 'multiples of the 512-byte sector \(direct\)' "probe: an unaligned direct request is refused"
like "$out" 'iomoon did not create this file; writing to it needs allow_write' "probe{write=true} on a file iomoon did not create: refused"
like "$out" 'probe is closed' "a closed probe says so"
cmp -s "$F" "$TMP/p.dat"; ok $? "the file read is unchanged"
is "$(dd if="$TMP/new.dat" bs=4096 skip=1 count=1 status=none | md5sum)" "$(python3 -c "import sys; sys.stdout.write('ab' * 2048)" | md5sum)" "probe:write put its bytes at its offset"
is "$(dd if="$TMP/new.dat" bs=4096 count=1 status=none | tr -d '\0' | wc -c)" 0 "and nothing before it"

# ---- ping -R (issue 48): each request is one 4 KiB read of the device,
# as ioping's, with the kernel's counts of a loop device as the witness
# (ext4 on it, the working set a directory there; iomoon's set-up reads the
# file's first MiB once, for signatures). Before, the buffered
# probe read ahead after each drop: 10 to 19 KiB of device reads per 4
# KiB request, and -R's average was 2.5x ioping's ----
if L=$(losetup -f --show "$(truncate -s 160m "$TMP/pr.img"; echo "$TMP/pr.img")" 2>/dev/null); then
	LOOPS="$LOOPS $L"
	mkdir -p "$TMP/prm"
	if mkfs.ext4 -q -F "$L" 2>/dev/null && mount "$L" "$TMP/prm" 2>/dev/null; then
		MOUNTS="$MOUNTS $TMP/prm"
		# kernel_per_request TOOL...: TOOL -R -w 1 -B on the mount; "requests reads KiB"
		kernel_per_request() {
			local s0 s1 n
			s0=$(cat "/sys/block/$(basename "$L")/stat")
			n=$("$@" -R -w 1 -B "$TMP/prm" | awk '{ print $1 }')
			s1=$(cat "/sys/block/$(basename "$L")/stat")
			echo "$n $(echo "$s0 $s1" | awk '{ print $18 - $1, ($20 - $3) / 2 }')"
		}
		for tool in iomoon ioping; do
			if [ $tool = iomoon ]; then read -r n r kib <<<"$(kernel_per_request "$IOMOON" ping)"
			else read -r n r kib <<<"$(kernel_per_request ioping)"; fi
			ok "$(awk -v n="$n" -v r="$r" -v k="$kib" 'BEGIN { exit !(n > 100 && r >= 0.9 * n && k <= 4.2 * n + 2048) }' && echo 0 || echo 1)" \
				"ping -R ($tool): $n requests, the device read $r times, $kib KiB: one read of 4 KiB each (no readahead; 2 MiB of set-up allowed)"
		done
		umount_wait "$TMP/prm"
		MOUNTS=""
	else
		skip "cannot make or mount ext4 on a loop device here"; skip "cannot make or mount ext4 on a loop device here"
	fi
else
	skip "no loop device here"; skip "no loop device here"
fi

done_testing
