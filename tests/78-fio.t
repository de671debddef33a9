#!/bin/bash
# fio's job files and command lines run by iomoon (`iomoon fio`, `iomoon run
# JOB.fio`; doc/import.md): the phases field by field (tests/lua/fio.lua),
# refusals, safety, fio's JSON layout read with fio's own field names, and
# IOPS beside fio's own on the same file (printed; make bench measures them).
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
mkdir -p sub
lua_tap "$T/lua/fio.lua" "$T"
rm -f a.dat b.dat c.dat v.dat sub/d.dat

# ---- unsupported options: one error naming each with its line, exit 2, nothing created ----
cp "$T/fio/unsupported.fio" u.fio
err=$("$IOMOON" fio u.fio 2>&1 >/dev/null)
is $? 2 "unsupported options: exit 2"
is "$(printf '%s\n' "$err" | wc -l)" 1 "... one line on stderr"
like "$err" "u.fio:4: 'zonemode', u.fio:9: 'fdp', u.fio:12: 'exitall_on_error'" "... naming every option and its line"
like "$err" "skip-unsupported" "... and saying how to run without them"
[ ! -e u.dat ]; ok $? "... nothing created"
err=$("$IOMOON" fio --name=x --filename=x.dat --size=1m --zonemode=zbd --fdp=1 2>&1 >/dev/null)
is $? 2 "unsupported options on the command line: exit 2"
like "$err" "command line: '--zonemode', command line: '--fdp'" "... each named as typed"
[ ! -e x.dat ]; ok $? "... nothing created"

# ---- --skip-unsupported: run without them, listed on stderr and in the result ----
"$IOMOON" fio u.fio --skip-unsupported --quiet --format json --output skip.json 2>skip.err
is $? 0 "--skip-unsupported: the job runs"
like "$(cat skip.err)" "skipped \(--skip-unsupported\): u.fio:4: 'zonemode'" "... the skipped options on stderr"
like "$(cat skip.err)" "gtod_reduce changes only fio's own bookkeeping: no effect here" "... and the no-effect ones"
is "$(python3 -c 'import json; print(len(json.load(open("skip.json"))["phases"][0]["meta"]["fio_skipped"]))')" 3 \
	"... and in the result's meta"
is "$(stat -c %s u.dat)" 4194304 "... on the file it created (size=4m)"

# ---- safety: a file iomoon did not create is written only with --allow-write ----
head -c 1048576 /dev/urandom >other.dat
sum=$(md5sum <other.dat)
err=$("$IOMOON" fio --name=w --filename=other.dat --rw=write --bs=4k --quiet 2>&1 >/dev/null)
is $? 2 "writing a file iomoon did not create: exit 2"
like "$err" "iomoon did not create this file.*--allow-write" "... the message names --allow-write"
is "$(md5sum <other.dat)" "$sum" "... the file unchanged"
"$IOMOON" fio --name=w --filename=other.dat --rw=write --bs=4k --quiet --format none --allow-write
is $? 0 "with --allow-write it runs"
[ "$(md5sum <other.dat)" != "$sum" ]; ok $? "... and wrote the file"
"$IOMOON" fio --name=r --filename=other.dat --rw=randread --bs=4k --quiet --format json --output r.json
is $? 0 "reading it needs nothing; no size: the whole file"
is "$(python3 -c 'import json; print(json.load(open("r.json"))["phases"][0]["bytes"])')" 1048576 "... 1 MiB read"

# ---- iomoon run JOB.fio, --target, ${VAR} ----
cat >t.fio <<'EOF'
[global]
size=${T_SIZE}
[tj]
rw=randread
filename=ignored.dat
EOF
T_SIZE=2m "$IOMOON" run --format json --output t.json --quiet t.fio
is $? 0 "iomoon run JOB.fio runs the job file"
is "$(python3 -c 'import json; p=json.load(open("t.json"))["phases"][0]; print(p["name"], p["bytes"])')" "tj 2097152" \
	"... size from \${T_SIZE}"
rm -f ignored.dat
T_SIZE=1m "$IOMOON" fio t.fio --target over.dat --quiet --format none
is $? 0 "--target overrides filename"
[ -e over.dat ] && [ ! -e ignored.dat ]; ok $? "... I/O went to the --target file"
err=$("$IOMOON" fio t.fio 2>&1 >/dev/null)
is $? 2 "an unset \${VAR}: exit 2"
like "$err" "t.fio:2: \\$\\{T_SIZE\\} is not set" "... naming the variable and line"

# ---- hostile job files: exit 2 with one line naming the file (and line), no traceback, no hang ----
mkdir dir.fio && mkfifo fifo.fio
for verb in fio convert run; do
	err=$("$IOMOON" $verb dir.fio 2>&1 >/dev/null)
	like "$?:$(printf '%s' "$err" | wc -l):$err" "^2:0:iomoon $verb: dir\.fio: is a directory, not a job file" \
		"$verb of a directory as the job file: exit 2, one line"
	err=$(timeout 10 "$IOMOON" $verb fifo.fio 2>&1 >/dev/null)
	like "$?:$err" "^2:iomoon $verb: fifo\.fio: is a fifo, not a job file" "$verb of a FIFO as the job file: exit 2 at once"
done
# a thinktime of a second or more runs (it was "'1e+06us' has an unknown unit"), and converts to a whole unit
printf '[th]\nrw=randread\nfilename=think.dat\nsize=1m\nruntime=1\ntime_based\nthinktime=1s\n' >think.fio
"$IOMOON" fio think.fio --quiet --format json --output think.json 2>think.err
is "$?:$(cat think.err)" "0:" "thinktime=1s: the job runs"
is "$(python3 -c 'import json; p = json.load(open("think.json"))["phases"][0]; print(p["ios"] in (1, 2), p["definition"]["think"])')" \
	"True 1s" "... an I/O a second for 1 s, thinking \"1s\""
like "$("$IOMOON" convert think.fio)" 'think = "1s", -- thinktime=1s' "... converted as think = \"1s\""
# a runtime past the longest time iomoon takes is too long, with the limit (it was "not a duration")
printf '[j]\nrw=read\nfilename=long.dat\nsize=1m\nruntime=99999999999d\ntime_based\n' >long.fio
for verb in fio convert; do
	err=$("$IOMOON" $verb long.fio 2>&1 >/dev/null)
	is "$?:$err" "2:iomoon $verb: long.fio:5: runtime: '99999999999d' is too long (iomoon times at most 106000 days, about 290 years)" \
		"$verb runtime=99999999999d: exit 2, too long, with the limit"
done
[ ! -e long.dat ]; ok $? "... nothing created"
printf '[j]\nfilename=big.dat\nsize=1m\nbs=99999999999999999999\n' >big.fio
err=$("$IOMOON" fio big.fio 2>&1 >/dev/null)
like "$?:$err" "^2:iomoon fio: big\.fio:4: bs: '99999999999999999999' is too large" "a size past 64 bits: exit 2 naming the line"
err=$("$IOMOON" fio --name=x --filename=big.dat --size=1m --numjobs=99999999999999999999 2>&1 >/dev/null)
like "$?:$(printf '%s' "$err" | wc -l):$err" "^2:0:iomoon fio: command line: --numjobs: '99999999999999999999' is too large" \
	"a count past 64 bits: exit 2, one line, no traceback"
err=$("$IOMOON" fio --name=x --filename=big.dat --size=0x10000000000000000 2>&1 >/dev/null)
like "$?:$err" "^2:iomoon fio: command line: --size: '0x10000000000000000' is too large" "a hexadecimal size past 64 bits: exit 2"
[ ! -e big.dat ]; ok $? "... nothing created"
python3 -c "
print('[global]\nsize=1m\nrw=read\nfilename=grp.dat\nruntime=200ms\ntime_based\n')
for i in range(3): print('[a_rather_long_job_name_as_people_write_them_%02d_xxxx]' % i)
for i in range(20): print('[j%d]%s' % (i, '\\nstonewall' if i == 0 else ''))" >names.fio
err=$("$IOMOON" fio names.fio 2>&1 >/dev/null)
like "$?:$err" "^2:iomoon fio: phase\.streams: 20 streams \(give 1 to 16\) \(names\.fio, phase 2 of 2: group 2: j0 \+ j1" \
	"a phase that does not check: exit 2 naming the job file and the phase"
[ ! -e grp.dat ]; ok $? "... nothing created"
# a ${VAR} holding a newline stays inside its comment in the converted plan (it was a line of code there)
printf '[j]\ndescription=${EVIL}\nrw=read\nsize=1m\nfilename=inj.dat\n' >env.fio
EVIL=$'a\nio.open("PWNED", "w")\n' "$IOMOON" convert env.fio >env.lua
is "$?:$(grep -c '^io.open' env.lua)" "0:0" "convert: a newline from \${VAR} does not end the comment"
"$IOMOON" run --quiet --format none env.lua
[ ! -e PWNED ] && [ -e inj.dat ]; ok $? "... running the plan runs the job, and nothing else"
head -n 10 names.fio >names3.fio
"$IOMOON" fio names3.fio --quiet --format json --output names3.json
is "$?:$(python3 -c 'import json; n = json.load(open("names3.json"))["phases"][0]["name"]; print(len(n), n[-3:])')" "0:118 ..." \
	"a group whose names add up past 127 bytes runs, its name cut to 118 (room for ' (verify)')"

# ---- fio's "--opt value" form; a new --filename created at --size; groups in fio-json ----
"$IOMOON" fio --name x --filename new.dat --size 1m --bs 8k --rw randread --format json --output x.json --quiet
is $? 0 "--opt value, as fio's command line takes it"
is "$(python3 -c 'import json; p=json.load(open("x.json"))["phases"][0]; print(p["mix"][0]["bs"], p["bytes"])')" \
	"[8192] 1048576" "... --bs 8k, and 1 MiB read (size)"
is "$(stat -c %s new.dat)" 1048576 "... a new --filename created at --size"
cp "$T/fio/groups.fio" groups.fio
"$IOMOON" fio groups.fio --quiet --format json --output g.json
is $? 0 "a job file of two groups runs"
is "$("$IOMOON" report g.json --format fio-json | python3 -c 'import json,sys
print(" ".join("%s:%d:%s" % (j["jobname"], j["groupid"], j["read"]["total_ios"] > 0) for j in json.load(sys.stdin)["jobs"]))')" \
	"data:0:True log:0:False readback:1:True" "iomoon report --format fio-json: a job per stream, groupid per phase"

# ---- ioengine=nbd: the uri is the target, a block device to iomoon's safety rules ----
if command -v nbdkit >/dev/null; then
	export IOMOON
	nbdkit -U - memory 64M --run '"$IOMOON" fio --name=n --ioengine=nbd --uri="$uri" --rw=randwrite --size=8m \
		--runtime=300ms --time_based --quiet --format none 2>nbd.err; echo $? >nbd.rc;
		"$IOMOON" fio --name=n --ioengine=nbd --uri="$uri" --rw=randwrite --size=8m --runtime=300ms --time_based \
		--allow-write --quiet --format json --output nbd.json; echo $? >>nbd.rc'
	is "$(tr '\n' ' ' <nbd.rc)" "2 0 " "ioengine=nbd: writing needs --allow-write (exit 2), then runs"
	like "$(cat nbd.err)" "allow-write" "... the refusal names --allow-write"
	is "$(python3 -c 'import json; p=json.load(open("nbd.json"))["phases"][0]; print(p["engine"], p["write"]["ios"] > 0)')" \
		"nbd True" "... on engine nbd, writes done"
else
	skip "nbdkit is not installed"
fi

# ---- fio's JSON layout: every key iomoon writes is one fio writes ----
"$IOMOON" fio --name=k --filename=k.dat --size=8m --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 \
	--runtime=300ms --time_based --fsync=4 --output-format=json --quiet >k-iomoon.json
is $? 0 "--output-format=json: fio's layout"
if command -v fio >/dev/null; then
	fio --name=k --filename=k.dat --size=8m --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 \
		--runtime=300ms --time_based --fsync=4 --output-format=json >k-fio.json 2>/dev/null
	ref=k-fio.json
else
	ref="$T/fio/fio-3.33-randrw.json"
fi
missing=$(python3 - k-iomoon.json "$ref" <<'PY'
import json, sys
def paths(v, p=""):
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            q = p + "/" + (k if not k.replace(".", "").isdigit() else "PCT")
            out.add(q); out |= paths(x, q)
    elif isinstance(v, list):
        for x in v: out |= paths(x, p + "[]")
    return out
a, b = (json.load(open(f)) for f in sys.argv[1:3])
print(" ".join(sorted(paths(a) - paths(b))))
PY
)
is "$missing" "" "every key of iomoon's fio-json is in fio's own output ($ref)"
is "$(python3 - k-iomoon.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); j = d["jobs"][0]; r, w = j["read"], j["write"]
ok = d["fio version"].startswith("iomoon-") and j["jobname"] == "k" and r["total_ios"] > 0 and w["total_ios"] > 0
ok = ok and abs(r["bw_bytes"] - r["io_bytes"] / (r["runtime"] / 1000)) <= r["bw_bytes"] * 0.01 + 1
ok = ok and r["clat_ns"]["N"] == r["total_ios"] and r["clat_ns"]["percentile"]["99.000000"] >= r["clat_ns"]["min"]
ok = ok and j["sync"]["total_ios"] > 0 and r["io_kbytes"] == r["io_bytes"] // 1024
print("good" if ok else json.dumps(j)[:400])
PY
)" good "read with fio's field names: jobname, total_ios, io_bytes / runtime = bw_bytes, clat_ns percentiles, sync"

# ---- IOPS beside fio's own, on the same file ----
# Each run gives its IOPS from fio's JSON layout (fio's own, or iomoon's fio-json). One round
# each: nothing here bounds the ratio, so more rounds (medians to print) would only take time.
iops() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(j["read"]["iops"] + j["write"]["iops"] for j in d["jobs"]))'; }
# cmp_iops NAME ROUNDS MODE FIO-ARGS...: alternate fio and iomoon fio with the same arguments,
# both on the same file, and print the medians and their ratio. What is asserted is that both
# ran the job and did I/O through fio's JSON layout; how fast iomoon is beside fio is make bench's
# to measure (doc/performance.md): a bound on the ratio here failed whenever the VM's disk or
# CPUs were busy elsewhere (iomoon 0.86 of fio one run, 1.03 the next, on a quiet machine).
cmp_iops() {
	local name=$1 rounds=$2 mode=$3 i f m fl ml
	shift 3
	fl="" ml=""
	for i in $(seq "$rounds"); do
		f=$(fio "$@" --output-format=json 2>/dev/null | iops)
		m=$("$IOMOON" fio "$@" --output-format=json --quiet 2>"$TMP/cmp.err" | iops) || sed 's/^/# iomoon fio: /' "$TMP/cmp.err"
		fl="$fl $f" ml="$ml $m"
	done
	python3 - "$name" "$fl" "$ml" "$(cut -d' ' -f1 /proc/loadavg)" "$(nproc)" "$mode" "$rounds" <<'PY'
import statistics, sys
name, f, m, load, cores = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()], float(sys.argv[4]), int(sys.argv[5])
mode = sys.argv[6]
fm, mm = statistics.median(f), statistics.median(m)
ratio = mm / fm if fm > 0 else 0
kind = {"same": "a job the device paces", "not-slower": "a job the tools' CPU paces"}[mode]
print("# %s: fio %s, iomoon %s IOPS; medians %.0f / %.0f = %.3f; load %.1f on %d cores (%s; make bench measures the ratio)" % (
    name, " ".join("%.0f" % x for x in f), " ".join("%.0f" % x for x in m), fm, mm, ratio, load, cores, kind))
print("ok" if len(f) == len(m) == int(sys.argv[7]) and min(f) > 0 and min(m) > 0 else "off")
PY
}
case "$IOMOON" in
*asan*) asan=1 ;;
*) asan=0 ;;
esac
if [ "$asan" = 1 ]; then
	# a sanitized iomoon spends several times the CPU per I/O: its IOPS beside fio's say
	# nothing (the suite's other pass, on the real binary, compares them)
	for n in "seed 001 --readwrite=read" "seed 001 --readwrite=randwrite" "the seed's line prints iomoon's table" \
		"... a row named as fio's job" "a disk-bound job file"; do
		skip "$n: fio and iomoon fio alternated on the real binary, not under ASan"
	done
elif command -v fio >/dev/null; then
	# iomoon creates the file (so both may write it), then fio and iomoon take turns on it
	"$IOMOON" fio --name=mk --filename=test --size=256M --rw=read --bs=1m --runtime=100ms --time_based --quiet \
		--format none
	# the seed's lines as written, then fio's own options that bound the run for both alike
	for rw in read randwrite; do
		out=$(cmp_iops "seed 001 --readwrite=$rw" 1 not-slower --randrepeat=1 --ioengine=libaio --direct=1 --gtod_reduce=1 \
			--name=test --filename=test --bs=4k --iodepth=128 --size=2G --readwrite=$rw --size=256M --runtime=500ms --time_based)
		printf '%s\n' "$out" | grep '^#'
		is "$(printf '%s\n' "$out" | tail -1)" ok "seed 001 --readwrite=$rw: fio and iomoon fio both did I/O"
	done
	out=$("$IOMOON" fio --randrepeat=1 --ioengine=libaio --direct=1 --gtod_reduce=1 --name=test --filename=test \
		--bs=4k --iodepth=128 --size=2G --readwrite=randwrite --size=256M --runtime=300ms --time_based 2>"$TMP/seed.err") ||
		sed 's/^/#   /' "$TMP/seed.err"
	like "$out" "^Test name.*Avg iops" "the seed's line prints iomoon's table"
	like "$out" "
test  " "... a row named as fio's job"
	cat >disk.fio <<'EOF'
[disk]
filename=test
rw=randread
bs=4k
direct=1
ioengine=libaio
iodepth=1
runtime=1
time_based
EOF
	out=$(cmp_iops "disk.fio (4k randread, direct, QD 1: the device's latency paces it)" 1 same disk.fio)
	printf '%s\n' "$out" | grep '^#'
	is "$(printf '%s\n' "$out" | tail -1)" ok "a disk-bound job file: fio and iomoon fio both did I/O"
else
	skip "fio is not installed: no comparison"
fi
# fio's examples/cpp_null.fio: the null engine written in C++ is iomoon's null
out=$("$IOMOON" fio --name=null --ioengine=cpp_null --bs=4k --size=64m --rw=randread --norandommap --format json 2>/dev/null |
	python3 -c 'import json,sys; p=json.load(sys.stdin)["phases"][0]; print(p["engine"], p["ios"])')
is "$out" "null 16384" "ioengine=cpp_null: engine null, the job's 64 MiB in 4 KiB reads"

# fio's progress options: --eta-newline and --status-interval are the
# phase's interval; --eta=never is --quiet; a value fio refuses is exit 2
out=$("$IOMOON" fio --name=e --ioengine=null --size=64m --rw=read --runtime=1 --time_based --eta-newline=200ms \
	--format json 2>eta.err | python3 -c 'import json,sys; p=json.load(sys.stdin)["phases"][0]; print(p["interval_s"], len(p["intervals"]))')
is "$out" "0.2 5" "--eta-newline=200ms: the phase sampled every 0.2 s (5 intervals in 1 s)"
like "$(cat eta.err)" "note: --eta-newline=200ms: iomoon samples every phase each 0.2s" "  and a note says so"
"$IOMOON" fio --name=e --ioengine=null --size=4m --rw=read --eta=sometimes >/dev/null 2>eta.err
is "$?:$(cat eta.err)" "2:iomoon fio: --eta: 'sometimes' is not always, never or auto" "--eta=sometimes: exit 2, naming what is right"

done_testing
