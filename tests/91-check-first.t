#!/bin/bash
# Check before touching, and every flag reaching the result: bad input in
# any phase of a suite, in an output path, a distribution's zones or a
# quota leaves every file as it was (nothing created, extended, filled or
# written, reports included); each command-line option of quick and suite
# is read back from the result's own fields.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
J() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# a good report, then bad input with the same --output: the report stays
"$IOMOON" quick --target a.dat --size 1m --ios 10 --quiet --format json --output good.json; ok $? "a good report"
sum=$(md5sum <good.json)
err=$("$IOMOON" quick --target a.dat --qd 0 --format json --output good.json 2>&1); is $? 2 "--qd 0: exit 2"
is "$(md5sum <good.json)" "$sum" "the existing report is unchanged (not replaced by an empty one)"
"$IOMOON" quick --target a.dat --qd 0 --format json --output new.json 2>/dev/null
[ ! -e new.json ]; ok $? "and no new report is created"

# an output path in a missing directory: refused before the target exists
err=$("$IOMOON" quick --target b.dat --size 16m --time 0.2 --output "$TMP/nope/x.json" 2>&1); is $? 2 "--output in a missing directory: exit 2"
is "$(printf '%s\n' "$err" | wc -l)" 1 "one line"
like "$err" "^iomoon quick: --output: .*directory .* does not exist" "names --output and the directory"
[ ! -e b.dat ]; ok $? "the target was not created"

# a suite whose fourth phase cannot run on this size: nothing runs
out=$("$IOMOON" suite quick --target s.dat --size 512k --time 0.1 --quiet 2>err.txt); is $? 2 "suite quick --size 512k: exit 2"
like "$(cat err.txt)" "larger than the region .* \(suite quick, phase 4 of 5" "names the phase of the suite"
is "$out" "" "no phase ran (no rows)"
[ ! -e s.dat ]; ok $? "and the target was never created"

# a zone too small to hold a block, on an existing file iomoon made
"$IOMOON" quick --target z.dat --size 1m --ios 1 --quiet --format none
sum=$(md5sum <z.dat)
err=$("$IOMOON" quick --target z.dat --size 64m --dist zoned:100/1e-300:0/100 --time 0.1 2>&1); is $? 2 "a zone with no block: exit 2"
like "$err" "--dist: zone 1 .* holds no 4096-byte block" "names --dist and the zone"
is "$(stat -c %s z.dat)" 1048576 "the file was not extended"
is "$(md5sum <z.dat)" "$sum" "nor written"

# small ones
err=$("$IOMOON" quick --target z.dat --qd 1e100 2>&1); is $? 2 "--qd 1e100: exit 2"
like "$err" "^iomoon quick: --qd: '1e100' is not a whole number$" "a one-line message, no traceback"
err=$("$IOMOON" quick --target z.dat --bs "4k$(printf '%70s' '')garbage" --time 0.1 2>&1); is $? 2 "a long size with garbage after 64 bytes: exit 2"
like "$err" "too long for a size" "says so"
err=$("$IOMOON" quick --target z.dat --time "1s$(printf '%70s' '')x" 2>&1); is $? 2 "the same for a duration"
err=$("$IOMOON" quick --target z.dat --qdepth 4 2>&1); is $? 2 "a misspelt option: exit 2"
like "$err" "unknown option --qdepth \(did you mean --qd\?\)" "with the near name"
out=$("$IOMOON" run --quiet "$LUA_DIR/lists.lua" 2>&1)
like "$(sed -n 1p <<<"$out")" "^phase.bs: not a list: .*the first missing is \[2\]" "a hole in a bs list is refused"
like "$(sed -n 2p <<<"$out")" "^phase.mix: not a list: .*the first missing is \[2\]" "in a mix"
like "$(sed -n 3p <<<"$out")" "^phase.schedule: not a list: .*the first missing is \[2\]" "in a schedule"
like "$(sed -n 4p <<<"$out")" "^phase.bytes: 1 is less than one I/O of 4096 bytes" "bytes below one block is refused"
like "$(sed -n 5p <<<"$out")" "unknown field 'qdepth' \(did you mean 'qd'\?\)" "phase fields suggest the near name"
like "$(sed -n 6p <<<"$out")" "unknown field 'duraton' \(did you mean 'duration'\?\)" "another"
err=$("$IOMOON" quick --target "$(printf 'new\nline\033[31m.dat')" --time 0.1 2>&1); is $? 2 "a path with control bytes: exit 2"
is "$(printf '%s' "$err" | tr -d '[:print:]' | wc -c)" 0 "echoed without raw control bytes"
out=$("$IOMOON" run --quiet --format none "$LUA_DIR/idle.lua" 2>/dev/null); is $? 1 "a phase that completed no I/O fails (exit 1)"
like "$out" "^0	true	no I/O completed in the measured time" "and says so in the result"

# every flag of quick, read back from the result
"$IOMOON" quick --target f.dat --size 2m --time 0.3 --ramp 0.1 --engine libaio --qd 4 --workers 2 --buffered \
	--bs 8k --read 70 --random 40 --rate 200 --dist zipf:1.2 --seed 42 --name flags --quiet --format json --output f.json
ok $? "quick with every flag"
is "$(stat -c %s f.dat)" 2097152 "--size made the file"
is "$(J f.json 'd["phases"][0]["target"]')" f.dat "--target"
is "$(J f.json 'd["phases"][0]["duration_s"]')" 0.3 "--time"
is "$(J f.json 'd["phases"][0]["ramp_s"]')" 0.1 "--ramp"
is "$(J f.json 'd["phases"][0]["engine"]')" libaio "--engine"
is "$(J f.json 'd["phases"][0]["qd"]')" 4 "--qd"
is "$(J f.json 'd["phases"][0]["workers"]')" 2 "--workers"
is "$(J f.json 'd["phases"][0]["direct"]')" False "--buffered"
is "$(J f.json 'd["phases"][0]["mix"][0]["bs"]')" "[8192]" "--bs"
is "$(J f.json 'd["phases"][0]["mix"][0]["read_pct"]')" 70 "--read"
is "$(J f.json 'd["phases"][0]["mix"][0]["random_pct"]')" 40 "--random"
is "$(J f.json 'd["phases"][0]["rate_iops"]')" 200 "--rate"
is "$(J f.json 'd["phases"][0]["dist"]')" zipf:1.2 "--dist"
is "$(J f.json 'd["phases"][0]["seed"]')" 42 "--seed"
is "$(J f.json 'd["phases"][0]["name"]')" flags "--name"
is "$(J f.json 'd["phases"][0]["write"]["ios"] > 0')" True "the mix wrote (--read 70)"
"$IOMOON" quick --target f.dat --ios 50 --rate 100 --quiet --format json --output i.json; ok $? "--ios with --rate"
is "$(J i.json 'd["phases"][0]["ios"]')" 50 "--ios: exactly that many I/Os (no 10 s cap)"
is "$(J i.json 'd["phases"][0]["quota_ios"]')" 50 "and the quota is in the result"
python3 -c "import os; open('theirs.dat','wb').write(os.urandom(1<<20))"
"$IOMOON" quick --target theirs.dat --read 0 --ios 8 --allow-write --quiet --format json --output w.json; ok $? "--allow-write"
is "$(J w.json 'd["phases"][0]["write"]["ios"]')" 8 "wrote to a file iomoon did not create"

# every flag of suite, on every phase
"$IOMOON" suite quick --target g.dat --size 8m --time 0.2 --ramp 0.05 --engine psync --qd 1 --workers 2 --buffered \
	--quiet --format json --output g.json; ok $? "suite with every flag"
is "$(J g.json 'sorted({(p["duration_s"], p["ramp_s"], p["engine"], p["qd"], p["workers"], p["direct"]) for p in d["phases"]})')" \
	"[(0.2, 0.05, 'psync', 1, 2, False)]" "--time --ramp --engine --qd --workers --buffered reach every phase"
is "$(J g.json 'len(d["phases"])')" 5 "all five phases ran"

# the engines that do no I/O need no target: a nominal region of --size
before=$(ls)
"$IOMOON" quick --engine null --ios 1000 --quiet --format json --output n.json; ok $? "quick --engine null without --target"
is "$(J n.json '(d["phases"][0]["ios"], d["phases"][0]["target"], d["phases"][0]["engine"])')" "(1000, '(none)', 'null')" \
	"runs on the nominal target"
"$IOMOON" quick --engine sim --size 64k --bs 4k --random 0 --ios 40 --trace 40 --quiet --format json --output s.json 2>/dev/null \
	|| "$IOMOON" run --quiet --format json --output s.json "$LUA_DIR/nominal.lua"
ok $? "sim on a nominal 64 KiB region"
is "$(J s.json 'max(d["phases"][0]["trace"]["offset"])')" 61440 "offsets stay inside --size (the last block at 60 KiB)"
"$IOMOON" suite quick --engine null --time 0.05 --quiet --format json --output q.json; ok $? "suite quick --engine null without --target"
is "$(J q.json 'len(d["phases"])')" 5 "all its phases ran"
is "$(ls | grep -v -e '^n.json$' -e '^s.json$' -e '^q.json$' | tr '\n' ' ')" "$(printf '%s\n' $before | tr '\n' ' ')" \
	"and no file was created for them"
err=$("$IOMOON" quick --engine psync --time 0.1 2>&1); is $? 2 "a real engine still needs --target"
err=$("$IOMOON" run --quiet /dev/stdin 2>&1 <<'LUA'
require("iomoon").run { engine = "null", bs = "4k", ios = 1, verify = "crc32c" }
LUA
); is $? 2 "verify on the nominal target: exit 2"
like "$err" "has no data to verify" "says why"

# the report file and the run's own inputs are never targets (found by attack)
head -c 1M /dev/urandom > user.db; sum=$(md5sum <user.db)
err=$("$IOMOON" run --format json --output user.db "$LUA_DIR/reads.lua" 2>&1); is $? 2 "run --output naming a file the script reads: exit 2"
like "$err" "user.db is the report file \(--output\) of this run; it cannot also be a target" "says why"
is "$(md5sum <user.db)" "$sum" "the file is untouched"
head -c 1M /dev/urandom > userlog.dat; sum=$(md5sum <userlog.dat)
cp "$LUA_DIR/cs.lua" cs.lua # a copy here: the test asks iomoon to write over it
"$IOMOON" quick --target ours.dat --size 1m --ios 1 --quiet --format none
out=$("$IOMOON" suite ./cs.lua --target ours.dat --output userlog.dat --format json --quiet 2>&1); is $? 2 "a suite phase's own target as --output: exit 2"
like "$out" "userlog.dat is the report file .* \(suite cs, phase 2 of 2: log\)" "before any phase ran, naming the phase"
is "$(md5sum <userlog.dat)" "$sum" "the file is untouched"
sum=$(md5sum <cs.lua)
"$IOMOON" suite ./cs.lua --target ours.dat --output cs.lua --quiet 2>/dev/null; is $? 2 "the suite file as --output: exit 2"
is "$(md5sum <cs.lua)" "$sum" "the suite file is untouched"
err=$("$IOMOON" quick --target ours.dat --time 0.1 -read 0 2>&1); is $? 2 "a one-hyphen option: exit 2"
like "$err" "'-read' is not an option \(options start with two hyphens" "says so"
err=$("$IOMOON" quick --target ours.dat --time 0.1 junk 2>&1); is $? 2 "a stray argument: exit 2"
err=$("$IOMOON" suite quick --target ours.dat "$(printf '\342\200\224')read" 0 2>&1); is $? 2 "an em-dash option (pasted from a document): exit 2"
# a stop between phases is an interrupted run (exit 1), with the report whole
"$IOMOON" run --format json --output b.json "$LUA_DIR/burn.lua" & p=$!; sleep 1; kill -INT $p; wait $p
is $? 1 "SIGINT during iomoon.sleep between phases: exit 1"
is "$(J b.json 'len(d["phases"])')" 1 "the report holds the phase that ran"
out=$("$IOMOON" run --format json "$LUA_DIR/exit.lua"); is $? 0 "a script that calls os.exit"
is "$(J /dev/stdin 'd["phases"][0]["ios"]' <<<"$out")" 5 "still prints its whole report"
"$IOMOON" run --quiet --format json --output many.json "$LUA_DIR/many.lua"
is "$(J many.json 'len(d["phases"])')" 600 "600 short phases with --output: the report holds all of them"
out=$("$IOMOON" run --quiet --format none "$LUA_DIR/library.lua" 2>&1)
like "$(sed -n 1p <<<"$out")" "times and until_ok both given" "a step with times and until_ok is refused"
like "$(sed -n 2p <<<"$out")" "until_steady.max_rounds: 0 is not a count >= 1" "until_steady max_rounds = 0"
like "$(sed -n 3p <<<"$out")" "until_steady.window: 9 rounds can never fit in max_rounds = 3" "a window that cannot fit"
like "$(sed -n 4p <<<"$out")" "is_steady.window: 0 is not a count >= 2" "is_steady window = 0"
like "$(sed -n 5p <<<"$out")" "find_max.phase: has its own rate" "find_max with a phase that has a rate"
like "$(sed -n 6p <<<"$out")" "suite options: unknown field 'tiem' \(did you mean 'time'\?\)" "suite.apply's options"
like "$(sed -n 7p <<<"$out")" "unknown field 'defaluts' \(did you mean 'defaults'\?\)" "an in-memory suite's fields"
like "$(sed -n 8p <<<"$out")" "phases gave a number, not a list of phases" "phases() that returns no list"

# found by a first-time user: results that contradict themselves or hide a typo
out=$("$IOMOON" run --quiet --format none "$LUA_DIR/results.lua" 2>&1)
is "$(sed -n 1p <<<"$out")" "over 0" "no interval's max is above the phase's exact max"
like "$(sed -n 2p <<<"$out")" "result.lat: no field 'p99' \(did you mean 'p99_ns'\?\)" "r.lat.p99 names p99_ns, as the docs show"
like "$(sed -n 3p <<<"$out")" "result.intervals\[i\]: no field 'p99' \(did you mean 'p99_ns'\?\)" "interval entries are strict too"
like "$(sed -n 4p <<<"$out")" "result.mix\[i\]: no field 'blocksize'" "and the mix's"
timed is "$(sed -n 5p <<<"$out")" "met 6" "poisson arrivals a device keeps up with are 'rate met' (their count varies by chance)"

is "$("$IOMOON" run --quiet --format none "$LUA_DIR/trace.lua")" "5 12 10 10" "trace = N keeps N records, however many workers"

out=$("$IOMOON" run --quiet --format none "$LUA_DIR/names.lua" 2>&1)
like "$(sed -n 1p <<<"$out")" "phase.name: holds a NUL byte" "a name with a NUL byte is refused (reports would cut it)"
like "$(sed -n 2p <<<"$out")" "phase.name: 300 bytes \(at most 127\)" "a name too long to keep is refused, not cut"

# a FIFO as target: refused at once, never opened
mkfifo pipe
err=$(timeout 10 "$IOMOON" quick --target pipe --time 0.1 2>&1); is $? 2 "a FIFO target: exit 2 (no hang)"
like "$err" "FIFO|not a regular file" "says what it is"
err=$(timeout 10 "$IOMOON" suite quick --target pipe --time 0.1 2>&1); is $? 2 "the same for suite"

# checking a writing phase reads the file for signatures: even its access
# time stays (O_NOATIME where the owner may ask for it)
head -c 64k /dev/urandom >"$TMP/at.dat"
touch -d 2020-01-01 "$TMP/at.dat"
is "$("$IOMOON" run --format none "$LUA_DIR/check-write.lua" "$TMP/at.dat") $(stat -c '%X %Y' "$TMP/at.dat")" "true $(date -d 2020-01-01 +%s) $(date -d 2020-01-01 +%s)" \
	"iomoon.check of a writing phase changes neither the access nor the modification time"
done_testing
