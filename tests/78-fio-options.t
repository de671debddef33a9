#!/bin/bash
# fio's everyday options, its steady-state and latency-target jobs as
# iomoon plans, and fio's terse and json+ output (doc/import.md): the
# phase fields (tests/lua/fio-options.lua), the plans run, and the I/O
# split beside fio's own on the same jobs.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
lua_tap "$T/lua/fio-options.lua" "$T"
rm -f a.dat p.dat

# ---- steady state: rounds judged by fio's criterion, the window said ----
cat >ss.fio <<'EOF'
[ss]
ioengine=null
size=64m
rw=randread
time_based
runtime=10
ss=iops:50%
ss_dur=600ms
ss_interval=200ms
EOF
"$IOMOON" fio ss.fio --quiet --format json --output ss.json 2>ss.err
is $? 0 "steadystate: the job runs as a plan"
like "$(cat ss.err)" "ss: steadystate=iops:50% attained after [0-9]+ rounds of 0.2s: window of 3" \
	"... steady state attained, the window said"
is "$(python3 -c 'import json; p=json.load(open("ss.json"))["phases"]; f=p[-1]["meta"]["fio_ss"]; print(f["round"] == len(p), f["window"], len(p) >= 3)')" \
	"True 3 True" "... rounds of their own, each saying its place (meta.fio_ss)"

"$IOMOON" convert ss.fio >ss.lua && "$IOMOON" run --quiet --format none ss.lua 2>ssc.err
is $? 0 "iomoon convert ss.fio: the plan runs"
like "$(cat ssc.err)" "steadystate=iops:50% attained" "... as the same steady-state plan (iomoon.fio.plans)"

# ---- latency target: the deepest queue under the bound ----
cat >lt.fio <<'EOF'
[lt]
ioengine=null
size=64m
rw=randread
iodepth=8
latency_target=1s
latency_window=100ms
latency_percentile=99
EOF
"$IOMOON" fio lt.fio --quiet --format json --output lt.json 2>lt.err
is $? 0 "latency_target: the search runs"
like "$(cat lt.err)" "lt: latency_target=1000000us at p99: qd 8 of 8 holds it \([0-9]+ IOPS, 4 probes of 0.1s\)" \
	"... depths 1, 2, 4, 8 probed, the depth found said"
is "$(python3 -c 'import json; p=json.load(open("lt.json"))["phases"]; f=p[-1]["meta"]["fio_found"]; print(len(p), f["qd"], p[-1]["qd"], p[-1]["bytes"], [x["qd"] for x in f["probes"]])')" \
	"5 8 8 67108864 [1, 2, 4, 8]" "... then the job at that depth, its result saying what was found (meta.fio_found)"
printf '[lt]\nfilename=lt.dat\nsize=1m\nrw=randread\ndirect=1\niodepth=4\nioengine=libaio\nlatency_target=1\nlatency_window=50ms\n' >lt2.fio
"$IOMOON" fio lt2.fio --quiet --format none 2>lt2.err
like "$(cat lt2.err)" "latency_target=1us: not met even at qd 1 \(p100 [0-9]+ us\); it runs at qd 1" "... a bound nothing meets is said"

# ---- fio's terse line: the fields fio writes, in its order ----
"$IOMOON" fio --name=t --ioengine=null --size=4m --rw=randrw --minimal >i.terse 2>/dev/null
is $? 0 "--minimal: runs"
fio --name=t --ioengine=null --size=4m --rw=randrw --minimal >f.terse 2>/dev/null
is "$(tr ';' '\n' <i.terse | wc -l)" "$(tr ';' '\n' <f.terse | wc -l)" "... as many fields as fio's own terse v3 line"
is "$(cut -d';' -f1,3,4,5 i.terse)" "3;t;0;0" "... version 3, the job's name, group and error"
python3 - i.terse f.terse >shape.txt <<'EOF'
import re, sys
def shape(x):
    for name, rx in (("int", r"-?\d+"), ("float", r"-?\d+\.\d+"), ("pct", r"-?\d+(\.\d+)?%"), ("pctl", r"\d+(\.\d+)?%=\d+")):
        if re.fullmatch(rx, x): return name
    return "text"
a, b = (open(p).read().strip().split(";") for p in sys.argv[1:3])
print([(i + 1, x, y) for i, (x, y) in enumerate(zip(a, b)) if shape(x) != shape(y)])
EOF
is "$(cat shape.txt)" "[]" "... each field of fio's kind (whole, decimal, percent, P%=us) in the same place"
is "$(awk -F';' '{print $6 + $47}' i.terse)" 4096 "... the KiB read (field 6) and written (field 47): 4 MiB in all, as fio's"
is "$(awk -F';' 'NR == FNR { r = $6; next } { d = $6 - r; print (d < 0 ? -d : d) <= 0.05 * r }' f.terse i.terse)" 1 \
	"... the KiB read within 5 % of fio's (a random split: $(cut -d';' -f6 f.terse) / $(cut -d';' -f6 i.terse))"
"$IOMOON" fio --name=t --ioengine=null --size=1m --output-format=terse >i2.terse 2>/dev/null
is "$(cut -d';' -f1 i2.terse)" "3" "--output-format=terse is --minimal"

# ---- json+: the latency bins ----
"$IOMOON" fio --name=j --ioengine=null --size=1m --output-format=json+ --output j.json 2>/dev/null
is "$(python3 -c 'import json; b=json.load(open("j.json"))["jobs"][0]["read"]["clat_ns"]["bins"]; print(sum(b.values()))')" 256 \
	"--output-format=json+: clat_ns.bins count every read"

# ---- ${VAR}, --set, --warnings-fatal, readonly, max_latency ----
printf '[v]\nfilename=${H30_FILE}\nsize=1m\n' >v.fio
err=$("$IOMOON" fio v.fio 2>&1 >/dev/null)
is $? 2 "an unset \${VAR}: exit 2"
like "$err" "give --set H30_FILE=VALUE, or set it in the environment" "... the message says how to give it"
"$IOMOON" fio v.fio --set H30_FILE=v.dat --quiet --format none
is "$?:$(stat -c %s v.dat 2>/dev/null)" "0:1048576" "--set H30_FILE=v.dat gives it"
err=$("$IOMOON" fio --name=w --filename=w.dat --size=1m --fallocate=none --warnings-fatal 2>&1 >/dev/null)
is $? 2 "--warnings-fatal: a note is an error"
like "$err" "warnings-fatal: 1 note on what iomoon does differently: command line: --fallocate" "... naming it"
[ ! -e w.dat ]; ok $? "... nothing created"
"$IOMOON" fio --name=w --filename=w.dat --size=1m --group_reporting --warnings-fatal --quiet --format none 2>/dev/null
is $? 0 "... but not fio's bookkeeping options, which change nothing"
rm -f w.dat
err=$("$IOMOON" fio --name=w --filename=w.dat --size=1m --rw=write --readonly 2>&1 >/dev/null)
is $? 2 "readonly with a writing job: exit 2"
[ ! -e w.dat ]; ok $? "... nothing created"
err=$("$IOMOON" fio --name=m --filename=m.dat --size=1m --rw=randread --max_latency=1 --direct=1 --time_based --runtime=60 \
	--status-interval=100ms --quiet --format none 2>&1)
is $? 1 "max_latency: an I/O over it fails the run (exit 1, as fio)"
like "$err" "max_latency: an I/O took [0-9]+ us, over the 1 us asked; the phase stopped at 0\.[0-9]+s" \
	"... saying which, and stopped at its first interval, not after the 60 s runtime"

# ---- the I/O split beside fio's own: counts, block sizes, phase order ----
# fio's run of split.fio (its groups' waits make it the slowest here) goes on in the background
# while the checks below, which use other files, run; the comparison waits for it
# (no trims: fio's trim needs a block device, and this test has files only)
cat >split.fio <<'EOF'
[global]
ioengine=psync
filename=split.dat
size=8m
group_reporting
[mixed]
rw=randrw
rwmixread=60
bs=4k
[synced]
stonewall
rw=write
bs=16k
size=2m
fsync=8
[paced]
stonewall
rw=randrw
bs=8k
rate_iops=1000
runtime=1
time_based
[four]
stonewall
numjobs=4
ioengine=libaio
iodepth=16
rw=randrw
rwmixread=60
bs=16k
size=2m
EOF
rm -f split.dat
fio split.fio --output-format=json --output=f.json >/dev/null 2>&1 &
split_fio=$!
trap 'kill "$split_fio" 2>/dev/null; wait "$split_fio" 2>/dev/null; cleanup' EXIT

# ---- flow and rates run: offset_increment, rate_min, exitall, --status-interval ----
"$IOMOON" fio --name=o --filename=o.dat --size=1m --numjobs=3 --offset_increment=1m --rw=randwrite --quiet \
	--format json --output o.json
is "$?:$(python3 -c 'import json; p=json.load(open("o.json"))["phases"][0]; print([s["ios"] for s in p["streams"]], p["target"])')" \
	"0:[256, 256, 256] o.dat" "offset_increment: three clones, a megabyte each of one 3 MiB file"
err=$("$IOMOON" fio --name=r --filename=o.dat --size=1m --rw=randread --rate_iops=100 --rate_iops_min=1000 --rate_cycle=250 \
	--runtime=60 --time_based --quiet --format none 2>&1)
is $? 1 "rate_iops_min over what the rate allows: the run fails (exit 1)"
like "$err" "rate_min: [0-9]+ IOPS at 0\.[0-9]+s, under the 1000 asked; the phase stopped there" \
	"... naming the interval, where the phase stopped"
"$IOMOON" fio --name=r --filename=o.dat --size=1m --rw=randread --rate_iops=400 --rate_iops_min=100 --rate_cycle=250 \
	--runtime=500ms --time_based --quiet --format none 2>/dev/null
is $? 0 "... and one the job meets passes"
printf '[global]\nsize=1m\nfilename=o.dat\nrw=randread\ntime_based\n[a]\nruntime=3\nexitall\n[b]\nruntime=500ms\n' >ex.fio
"$IOMOON" fio ex.fio --quiet --format json --output ex.json 2>/dev/null
is "$?:$(phase_of ex.json duration_s)" "0:0.5" "exitall: the group ends with its first job (0.5 s, not 3)"
# the phase's own clock, not the wall's (a loaded machine starts a process late)
is "$(python3 -c 'import json; p=json.load(open("ex.json"))["phases"][0]; print(p["seconds"] < 1, [s["seconds"] < 1 for s in p["streams"]])')" \
	"True [True, True]" "... measured for about half a second, a's stream too"
is "$(python3 -c 'import json; p=json.load(open("ex.json"))["phases"][0]; print(max(i["t_s"] for s in p["streams"] for i in s["intervals"]) <= 0.5 + 1e-6, [s["ios"] > 0 for s in p["streams"]])')" \
	"True [True, True]" "... a's I/Os stop with b's end: none counted after 0.5 s"
# exitall over jobs that end by size (fio's exitwhat.fio, shrunk, its rw=r/w spelt out: fio 3.33 refuses those):
# the slow job's 100 I/Os end the group, exit_what=all the run; beside fio's own run of the same file
printf '[global]\nfilename=ew.dat\nfilesize=16m\nbs=4k\nexitall\n[slow]\nrw=read\nthinktime=2000\nnumber_ios=100\nexit_what=all\n[fast]\nioengine=libaio\niodepth=8\nrw=randrw\nrate_iops=100\n[after]\nstonewall\nrw=write\nsize=1m\n' >ew.fio
ew_ios='import json, sys; print(" ".join("%s:%d" % (j["jobname"], j["read"]["total_ios"] + j["write"]["total_ios"]) for j in json.load(open(sys.argv[1]))["jobs"]))'
T0=$(secs)
"$IOMOON" fio ew.fio --quiet --format fio-json --output ewi.json 2>ew.err
is "$?:$(under "$(since "$T0")" 4)" "0:0" "exitwhat: runs, in seconds (the fast job alone would take 40 s for its 16 MiB)"
like "$(python3 -c "$ew_ios" ewi.json)" "^slow:100 fast:[1-9][0-9]*$" "... the slow job's 100 I/Os end the group; the fast one stopped with them"
like "$(cat ew.err)" "after: not run \(exitall with exit_what=all ended the run" "... exit_what=all: the later phase not run, said"
if fio ew.fio --output-format=json --output=ewf.json >/dev/null 2>&1; then
	like "$(python3 -c "$ew_ios" ewf.json)" "^slow:100 fast:[1-9][0-9]* after:0$" "... as fio 3.33 runs it: slow 100, fast stopped, after none"
else
	skip "fio could not run ew.fio"
fi
# startdelay between the jobs of a group, wait_for after them (load-independent: order and lower bounds)
printf '[global]\nioengine=null\nsize=64m\nrw=randread\ntime_based\nruntime=500ms\n[a]\n[b]\nstartdelay=250ms\n[c]\nwait_for=a\nruntime=100ms\n' >sd.fio
"$IOMOON" fio sd.fio --status-interval=50ms --quiet --format json --output sd.json 2>/dev/null
is "$?:$(python3 -c 'import json; s=json.load(open("sd.json"))["phases"][0]["streams"]; print(s[0]["intervals"][0]["ios"] > 0, all(i["ios"] == 0 for i in s[1]["intervals"] if i["t_s"] < 0.25), s[1]["ios"] > 0)')" \
	"0:True True True" "startdelay=250ms in a group: b does no I/O before 0.25 s, a from the start, b after"
is "$(python3 -c 'import json; p=json.load(open("sd.json"))["phases"]; print(len(p), p[1]["name"], p[1]["started"] >= p[0]["ended"])')" \
	"2 c True" "wait_for=a: c starts after a's group has ended"
# filesize= without size= (fio's waitfor example): the job's size; unlink=1 deletes the file after (mobile-storage)
printf '[global]\nfilename=fs.dat\nfilesize=2m\n[w]\nrw=write\nbs=128k\n[r]\nnew_group\nwait_for=w\nrw=randread\nunlink=1\n' >fs.fio
"$IOMOON" fio fs.fio --quiet --format json --output fs.json 2>/dev/null
is "$?:$(python3 -c 'import json; print([p["bytes"] for p in json.load(open("fs.json"))["phases"]])'):$([ -e fs.dat ] && echo kept || echo gone)" \
	"0:[2097152, 2097152]:gone" "filesize=2m without size=: each job does 2 MiB; unlink=1: the file is deleted after"
# a file that was there before iomoon is written with --allow-write, but unlink=1 leaves it
head -c 2M /dev/urandom >theirs.dat
printf '[r]\nfilename=theirs.dat\nrw=randread\nsize=2m\nunlink=1\n' >theirs.fio
err=$("$IOMOON" fio theirs.fio --quiet --format none 2>&1)
is "$?:$([ -e theirs.dat ] && echo kept || echo gone)" "0:kept" "unlink=1 on a file iomoon did not create: the file is kept"
like "$err" "unlink: left .*theirs.dat \(iomoon did not create it\)" "and says so"
"$IOMOON" fio --name=s --filename=o.dat --rw=randread --runtime=300ms --time_based --status-interval=100ms --quiet \
	--format json --output si.json 2>/dev/null
is "$(phase_of si.json interval_s)" 0.1 "--status-interval=100ms: the phase samples every 0.1 s"

printf '[z]\nfilename=z.dat\nsize=16m\nrw=read\nbs=64k\nzonemode=strided\nzonesize=1m\nzoneskip=3m\n' >z.fio
"$IOMOON" fio z.fio --quiet --format json --output z.json 2>/dev/null
is "$?:$(python3 -c 'import json; print([(p["definition"]["region"]["offset"] >> 20, p["bytes"] >> 20) for p in json.load(open("z.json"))["phases"]])')" \
	"0:[(0, 1), (4, 1), (8, 1), (12, 1)]" "zonemode=strided: a phase per zone, 1 MiB read every 4 MiB along the file"

cat >cmp.py <<'EOF'
import json, sys
f, i = (json.load(open(p))["jobs"] for p in sys.argv[1:3])
print("names", [j["jobname"] for j in f] == [j["jobname"] for j in i])
for a, b in zip(f, i):
    for d in ("read", "write", "trim"):
        x, y = a[d]["total_ios"], b[d]["total_ios"]
        if a["jobname"] == "paced":
            # time-based at rate_iops=1000 for 1 s: how many a loaded machine
            # lets either tool do is the scheduler's; the ceiling is the rule
            ok = 0 < y <= 1050 if d != "trim" else x == y == 0
        else:
            ok = abs(x - y) <= 0.05 * max(x, y) if max(x, y) else True
        bs_ok = (a[d]["io_bytes"] // x == b[d]["io_bytes"] // y) if x and y and d != "trim" else True
        print(a["jobname"], d, "ok" if ok and bs_ok else "BAD %d %d" % (x, y))
    x, y = a["sync"]["total_ios"], b["sync"]["total_ios"]
    print(a["jobname"], "sync", "ok" if abs(x - y) <= 0.05 * max(x, y, 1) + 1 else "BAD %d %d" % (x, y))
EOF
# ---- the I/O split beside fio's own (its fio run started above) ----
# split_run [again]: fio (the background run, or again one now), then iomoon, on split.fio; cmp.txt
# compares them (a shared machine can starve one run of its paced rate: run again once)
split_run() {
	if [ $# -eq 0 ]; then
		wait "$split_fio" || return 1
	else
		rm -f split.dat
		fio split.fio --output-format=json --output=f.json >/dev/null 2>&1 || return 1
	fi
	"$IOMOON" fio split.fio --quiet --format fio-json --output i.json --allow-write 2>/dev/null || return 2
	python3 cmp.py f.json i.json >cmp.txt
}
split_run
rc=$?
if [ "$rc" -eq 0 ] && grep -q BAD cmp.txt; then
	grep BAD cmp.txt | sed 's/^/# first run, again: /'
	split_run again
	rc=$?
fi
if [ "$rc" -ne 1 ]; then
	is "$rc" 0 "split.fio: iomoon runs it"
	is "$(head -1 cmp.txt)" "names True" "... the jobs in fio's order"
	is "$(grep -c ' ok$' cmp.txt)" 16 "... reads, writes, trims and syncs of each job within 5 % of fio's (rate_iops=1000 on randrw for 1 s: at most 1000 reads and 1000 writes, +5 %) (fsync=8: one more or less), block sizes alike"
	grep BAD cmp.txt | sed 's/^/# /'
else
	skip "fio could not run split.fio here"; skip "fio missing"; skip "fio missing"
fi

# ---- rw's offset modifier (fio's backwards-read and cross-stripe-verify): the offsets fio's iolog has ----
# one job file, its jobs run together, each on its own file (its offsets its own): one iomoon run (a
# phase of a stream a job), and one fio run of its copy where each job writes its own iolog
mod_job() { printf '[%s]\nfilename=%s.dat\n' "$1" "$1"; shift; printf '%s\n' "$@"; }
{
	mod_job bw bs=4k rw=read:-8k size=64k
	mod_job ho bs=16k rw=write:112k size=1m offset=120k io_size=1m
	# without io_size fio goes over the region once: a read ending at its end, or a hole past it, ends the job
	mod_job fw bs=4k rw=read:8k size=64k
	mod_job fo bs=16k rw=write:112k size=1m offset=120k
	mod_job fn bs=4k rw=write:8k size=64k number_ios=20
	# back from an offset: fio starts size - offset - 8k into the region, not at the offset
	mod_job bo bs=4k rw=read:-8k size=64k offset=16k
	# ... or, when that is before the region's start, the step before its end
	mod_job bp bs=4k rw=read:-12k size=64k offset=60k
	# ... and without size=, on a file of 128 KiB that is there: the rest of the file from the offset
	mod_job bx bs=4k rw=read:-8k offset=16k
	# ... and forward: fio's one pass over the rest of the file, not the rest of the file's bytes
	mod_job fx bs=4k rw=read:8k offset=16k
} >mod.fio
mod_jobs="bw:4096 ho:16384 fw:4096 fo:16384 fn:4096 bo:4096 bp:4096 bx:4096 fx:4096"
mod_files() { rm -f bw.dat ho.dat fw.dat fo.dat fn.dat bo.dat bp.dat; head -c 128k /dev/zero >bx.dat; cp bx.dat fx.dat; }
# offsets: the job's I/Os of its block size (the fill's writes are larger), in KiB
offsets() { grep -o "$1, [0-9]*) *= *$1\$" | grep -o ', [0-9]*)' | tr -d ',) ' | awk '{ printf "%d ", $1 / 1024 }'; }
if command -v fio >/dev/null && command -v strace >/dev/null; then
	mod_files
	sed 's/^\[\(.*\)\]$/&\nwrite_iolog=\1.log/' mod.fio >modf.fio
	fio modf.fio --output=/dev/null >/dev/null 2>&1
	mod_files
	# (a file per thread, -ff: a stream's worker's calls in its own, never split by another's)
	strace -ff -y -o mod.st -e trace=pread64,pwrite64 "$IOMOON" fio mod.fio --quiet >/dev/null 2>&1
	for j in $mod_jobs; do
		awk -v n="${j#*:}" '($3 == "read" || $3 == "write") && $5 == n { printf "%d ", $4 / 1024 }' "${j%:*}.log" >"${j%:*}.fio.off"
		cat mod.st.* | grep "/${j%:*}\.dat>" | offsets "${j#*:}" >"${j%:*}.iom.off"
	done
	is "$(cat bw.iom.off)" "$(cat bw.fio.off)" "rw=read:-8k: iomoon reads the offsets fio's iolog has ($(cut -c1-40 bw.fio.off)...)"
	like "$(cat bw.iom.off)" "^0 56 52 48 .* 8 4 0 $" "... 0, then from 56 KiB down by 4 KiB (a test that reads ahead fails)"
	is "$(cat ho.iom.off)" "$(cat ho.fio.off)" "rw=write:112k from offset=120k: iomoon writes fio's offsets ($(cut -c1-40 ho.fio.off)...)"
	is "$(wc -w <ho.iom.off)" 64 "... 64 writes of 16k (io_size=1m), wrapping to 120k past the region's end"
	is "$(cat fw.iom.off)" "$(cat fw.fio.off)" "rw=read:8k, size=64k, no io_size: fio's one pass ($(cat fw.fio.off)), not 64k of reads"
	is "$(cat fo.iom.off)" "$(cat fo.fio.off)" "rw=write:112k from offset=120k, no io_size: fio's 8 writes ($(cut -c1-40 fo.fio.off)...)"
	is "$(cat fn.iom.off)" "$(cat fn.fio.off)" "rw=write:8k with number_ios=20: the pass's 6 writes end it first, as fio's"
	is "$(cut -d' ' -f1-3 bo.iom.off)" "$(cut -d' ' -f1-3 bo.fio.off)" \
		"rw=read:-8k from offset=16k, size=64k: the first offsets fio's ($(cut -d' ' -f1-3 bo.fio.off)), not the offset"
	is "$(cat bo.iom.off)" "$(cat bo.fio.off)" "... and all of them ($(cut -c1-40 bo.fio.off)...)"
	like "$(cat bo.iom.off)" "^56 52 48 .* 20 16 72 68 64 60 56 $" "... 56 KiB down to the offset, then from the region's end less 8k"
	is "$(cat bp.iom.off)" "$(cat bp.fio.off)" "rw=read:-12k from offset=60k, size=64k: fio's offsets ($(cut -c1-40 bp.fio.off)...)"
	is "$(cat bx.iom.off)" "$(cat bx.fio.off)" "rw=read:-8k from offset=16k without size=, a 128 KiB file: fio's offsets ($(cut -c1-40 bx.fio.off)...)"
	is "$(wc -w <bx.iom.off)" 28 "... 28 reads: the file from the offset"
	is "$(cat fx.iom.off)" "$(cat fx.fio.off)" "rw=read:8k from offset=16k without size=, a 128 KiB file: fio's one pass ($(cat fx.fio.off))"
else
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do skip "fio or strace missing"; done
fi
err=$("$IOMOON" fio --name=x --filename=x.dat --size=1m --rw=read:8q 2>&1)
like "$?:$err" "^2:.*rw: '8q'" "rw=read:8q: exit 2 naming rw and the value"

# ---- I/O priorities (fio's cmdprio-percentage.fio on a file, 16k): what the kernel was given ----
printf '[global]\nfilename=cp.dat\ndirect=1\nwrite_lat_log=prio-run.log\nlog_prio=1\n[randread]\nrw=randread\nbs=16k\nsize=16m\nioengine=libaio\niodepth=8\nprioclass=3\ncmdprio_percentage=20\ncmdprio_class=1\n' >cp.fio
# prio_seen STRACE: iocbs, the share (%) with IOPRIO_CLASS_RT level 0, and the threads set to IDLE
prio_seen() { awk '{ n += gsub(/aio_lio_opcode=/, "&"); rt += gsub(/aio_reqprio=IOPRIO_PRIO_VALUE\(IOPRIO_CLASS_RT, 0\)/, "&") }
	/ioprio_set\(IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE\(IOPRIO_CLASS_IDLE, 0\)\) = 0/ { idle++ }
	END { printf "%d %d %d", n, (n ? int(100 * rt / n + 0.5) : -1), idle }' "$1"; }
if command -v strace >/dev/null; then
	rm -f cp.dat
	strace -f -o cp.st -e trace=io_submit,ioprio_set -v -s 0 "$IOMOON" fio cp.fio --quiet >/dev/null 2>&1
	read -r n pct idle <<<"$(prio_seen cp.st)"
	is "$n:$idle" "1024:1" "prioclass=3: the worker thread set to IDLE (ioprio_set), its 1024 reads submitted"
	ok "$([ "$pct" -ge 16 ] && [ "$pct" -le 24 ] && echo 0 || echo 1)" "cmdprio_percentage=20, cmdprio_class=1: ${pct} % of the iocbs carry IOPRIO_CLASS_RT (aio_reqprio)"
	if command -v fio >/dev/null && { rm -f cp.dat; strace -f -o cpf.st -e trace=io_submit,ioprio_set -v -s 0 fio cp.fio --output=/dev/null >/dev/null 2>&1; }; then
		read -r fn fpct fidle <<<"$(prio_seen cpf.st)"
		ok "$([ "$fn" = "$n" ] && [ "$fidle" = 1 ] && [ $((fpct - pct)) -le 6 ] && [ $((pct - fpct)) -le 6 ] && echo 0 || echo 1)" \
			"... as fio 3.33 gives them: $fn reads, ${fpct} % RT, the thread IDLE ($fidle)"
	else
		skip "fio missing"
	fi
else
	skip "strace missing"; skip "strace missing"; skip "strace missing"
fi
# io_uring: without CAP_SYS_ADMIN and CAP_SYS_NICE the kernel refuses an RT I/O (EPERM): the share refused is the share given
if command -v capsh >/dev/null && [ "$(id -u)" = 0 ] && "$IOMOON" list 2>/dev/null | grep -q "^ *io_uring *works"; then
	rm -f cpu.dat
	capsh --drop=cap_sys_admin,cap_sys_nice -- -c "'$IOMOON' fio --name=u --filename=cpu.dat --size=16m --rw=randread --bs=4k --ioengine=io_uring \
		--iodepth=8 --direct=1 --number_ios=2000 --continue_on_error=all --cmdprio_percentage=20 --quiet --format json --output cpu.json" >/dev/null 2>&1
	like "$(python3 -c 'import json; p=json.load(open("cpu.json"))["phases"][0]; e=p["errors"]; print(e, round(100.0 * e / (p["ios"] + e)))' 2>&1)" \
		"^[0-9]+ (1[6-9]|2[0-4])$" "io_uring, cmdprio_percentage=20 without the capability: 16-24 % of the I/Os refused by the kernel (EPERM): it saw their priority"
else
	skip "capsh, root or io_uring missing"
fi
err=$("$IOMOON" fio --name=p --filename=p.dat --size=1m --rw=randread --cmdprio_percentage=20 2>&1)
like "$?:$err" "^2:.*cmdprio_percentage: fio gives a share of I/Os their own priority with ioengine=io_uring or libaio only" \
	"cmdprio_percentage with psync: exit 2, saying which engines take it"

# ---- iodepth_mode=stepped (fio's iodepth_mode_stepped.fio; a fio newer than 3.33): a probe, then the steps ----
printf '[step]\nioengine=null\niodepth=8\nrw=randread\nsize=16m\ntime_based=1\nruntime=1h\niodepth_mode=stepped:50-150/50,0/200ms\n' >st.fio
"$IOMOON" fio st.fio --quiet --format json --output st.json 2>st.err
is "$?:$(python3 -c 'import json; print([(p["meta"]["fio_step"]["pct"], p["qd"]) for p in json.load(open("st.json"))["phases"]])')" \
	"0:[(100, 8), (50, 5), (100, 5), (150, 8)]" "stepped:50-150/50: the probe at qd 8, then 50 % (paced) and 100 % at qd 8 x 100/150, 150 % at qd 8"
like "$(python3 -c 'import json; ps = json.load(open("st.json"))["phases"]; print(ps[1]["iops"] <= 0.6 * ps[0]["iops"], ps[3].get("rate_asked_iops") is None and ps[1]["rate_asked_iops"] <= 0.505 * ps[0]["iops"], [round(p["seconds"], 1) for p in ps])')" \
	"^True True \[0.2, 0.2, 0.2, 0.2\]$" "... the 50 % step held under the probe's IOPS by its rate (half the probe's), the last unpaced; each 200 ms"
like "$(cat st.err)" "step: iodepth_mode=stepped 50 %: qd 5, paced at [0-9]+ IOPS: [0-9]+ IOPS, mean latency" "... each step's IOPS and latency said, as fio's report lists them"

# ---- flow (fio's flow.fio and butterfly.fio, shrunk): the jobs' I/O in the ratio of their flow, beside fio's ----
printf '[global]\nnorandommap\nthread\ntime_based\nruntime=500ms\ndirect=1\nioengine=libaio\niodepth=16\nsize=16m\nbs=8k\nfilename=fl.dat\nflow_sleep=1000\n[job2]\nnumjobs=1\nrw=write\nflow=1\n[job1]\nnumjobs=1\nrw=randread\nflow=8\n' >fl.fio
printf '[global]\nfilename=bf.dat\nbs=4k\ndirect=1\nsize=1m\n[forward]\nrw=read\nflow=2\n[backward]\nrw=read:-8k\nflow=-2\n' >bf.fio
flow_split='import json, sys; js = json.load(open(sys.argv[1]))["jobs"]; r = sum(j["read"]["total_ios"] for j in js); w = sum(j["write"]["total_ios"] for j in js); print(r, w, round(r / max(w, 1), 2))'
rm -f fl.dat
"$IOMOON" fio fl.fio --quiet --format fio-json --output fli.json 2>/dev/null
read -r ir iw iratio <<<"$(python3 -c "$flow_split" fli.json)"
if fio fl.fio --output-format=json --output=flf.json >/dev/null 2>&1; then
	read -r fr fw fratio <<<"$(python3 -c "$flow_split" flf.json)"
	ok "$(awk -v a="$iratio" -v b="$fratio" 'BEGIN { exit !(a > 0.9 * b && a < 1.1 * b) }' && echo 0 || echo 1)" \
		"flow=1 (writes) beside flow=8 (random reads): reads per write $iratio ($ir:$iw), fio's $fratio ($fr:$fw), within 10 %"
else
	ok "$(awk -v a="$iratio" 'BEGIN { exit !(a > 7.2 && a < 8.8) }' && echo 0 || echo 1)" "flow=1 beside flow=8: reads per write $iratio (fio could not run it here)"
fi
rm -f bf.dat
strace -f -o bf.st -e trace=pread64 "$IOMOON" fio bf.fio --quiet --format fio-json --output bfi.json >/dev/null 2>&1
is "$(python3 -c "$flow_split" bfi.json | cut -d' ' -f1-2)" "512 0" "butterfly: 512 reads of 4k in all, as fio's two jobs' 256 each"
is "$(grep -o ', 4096, [0-9]*) = 4096' bf.st | head -40 | awk '{ o = $3 + 0; if (o < 131072) lo++; if (o >= 917504) hi++ } END { print (lo >= 10 && hi >= 10) ? "both ends" : lo " low, " hi " high" }')" \
	"both ends" "... the first 40 interleave the file's start (forward) and its end (backward, by 4k down): a funnel"

# ---- fio's random map (issue 48): bssplit with random I/O, fio's default map
# (each block once per pass, I/Os cut at its holes) as phase.random_map:
# iomoon fio's I/O count within 10 % of fio's own iolog on the same job
# (before: 3762 I/Os against fio's 7119, every 64k whole), the bytes both
# size= within an I/O; with norandommap neither keeps one ----
iolog_counts() { awk '$3 == "read" || $3 == "write" { n++; b += $5 } END { print n + 0, b + 0 }' "$1"; }
iomoon_counts() { python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; print(p["ios"], p["bytes"])' "$1"; }
within() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(b > 0 && a > 0.9 * b && a < 1.1 * b) }'; }
for map in map nomap; do
	{ cat "$T/fio/oltp-map.fio"; [ $map = nomap ] && echo norandommap; } >om-$map.fio
	rm -f om.dat om.iolog
	if fio om-$map.fio --write_iolog=om.iolog >/dev/null 2>&1; then
		read -r fn fb <<<"$(iolog_counts om.iolog)"
		"$IOMOON" fio om-$map.fio --allow-write --quiet --format json --output om-$map.json 2>/dev/null
		read -r in ib <<<"$(iomoon_counts om-$map.json)"
		within "$in" "$fn"
		ok $? "oltp bssplit job ($map): iomoon fio did $in I/Os, fio's iolog $fn (within 10 %)"
		# without a map fio's last I/O may run past size= (iomoon's quota ends on it)
		[ $((ib > fb ? ib - fb : fb - ib)) -lt 65536 ]
		ok $? "... and both moved size= (iomoon $ib bytes, fio $fb: less than one 64k I/O apart)"
	else
		skip "fio would not run om-$map.fio"
		skip "fio would not run om-$map.fio"
	fi
done
like "$("$IOMOON" convert om-map.fio)" "random_map = true, -- fio's default random map" \
	"iomoon convert says where random_map came from"
out=$("$IOMOON" convert om-nomap.fio)
case "$out" in *random_map*) ok 1 "... and with norandommap sets none" ;; *) ok 0 "... and with norandommap sets none" ;; esac
# the phase field itself: a random 16 MiB of bssplit writes with the map,
# 16 MiB in all, writes every 4k block (offset pattern on disk); a skewed
# dist with it is refused, naming the field
cat >rmap.lua <<'EOF'
local r = require("iomoon").run { target = { path = "rmap.dat", size = "16m", create = true }, qd = 4,
  mix = { { bs = { { "4k", 50 }, { "8k", 30 }, { "64k", 20 } }, read = 0, random = 100 } }, bytes = "16m",
  pattern = "offset", random_map = true, dist = arg[1] }
print(r.ios, r.bytes)
EOF
rm -f rmap.dat
out=$("$IOMOON" run --quiet --format none rmap.lua 2>&1)
is "$?:$(echo "$out" | cut -f2)" "0:16777216" "random_map = true: 16 MiB of bssplit writes"
is "$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print(sum(struct.unpack_from("<Q", d, i)[0] != i for i in range(0, len(d), 4096)))' rmap.dat 2>&1)" \
	0 "... wrote every 4k block of the 16 MiB once ($(echo "$out" | cut -f1) I/Os: whole 64k I/Os would overlap and leave holes)"
out=$("$IOMOON" run --quiet --format none rmap.lua zipf:1.2 2>&1)
is $? 2 "random_map with dist = zipf: exit 2"
like "$out" "random_map: given with a dist other than uniform" "... naming the field and why"

# ---- random_distribution=sequence (fio's sequence-distribution.fio, a fio newer than 3.33; on a file): the blocks its comments list ----
if command -v strace >/dev/null; then
	printf '[global]\nioengine=psync\nfilename=sq.dat\nrw=randread\nbs=4k\nsize=48k\nio_size=24k\n[repeating_sequence]\nrandom_distribution=sequence:2,0,1\nrandom_sequence_stride=0\n[strided_sequence]\nstonewall\nrandom_distribution=sequence:2,0,1\nrandom_sequence_stride=1\n' >sq.fio
	rm -f sq.dat
	# (LeakSanitizer cannot run under ptrace: the sanitized build's exit status needs it off here)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o sq.st -e trace=pread64 "$IOMOON" fio sq.fio \
		--quiet --format none >/dev/null 2>&1
	is "$?:$(offsets 4096 <sq.st | awk '{ for (i = 1; i <= NF; i++) printf "%s%d", (i > 1 ? " " : ""), $i / 4 }')" "0:2 0 1 2 0 1 2 0 1 5 3 4" \
		"sequence:2,0,1: blocks 2, 0, 1, 2, 0, 1; with random_sequence_stride=1: 2, 0, 1, 5, 3, 4 (the example's own comments)"
else
	skip "strace missing"
fi
done_testing
