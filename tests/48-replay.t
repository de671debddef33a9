#!/bin/bash
# Replay: the trace's records issued as recorded (tests/lua/replay.lua:
# ops, offsets, lengths, times, speed, no_stall, offsets, devices, passes,
# streams, bad input), and `iomoon replay` on the command line.
. "$(dirname "$0")/lib.sh"
mkdir "$TMP/lua"
lua_tap "$T/lua/replay.lua" "$T" "$TMP/lua"
lua_tap "$T/lua/replay_cut.lua" "$T" "$TMP/lua"
cd "$TMP" || exit 1

# ---- a replay cut short says so in every report format ----
# a dense trace (2000 records within 0.25 s) on a device too slow for it
# (sim: 1 ms an I/O, one at a time), cut by the duration at half of it;
# and the same trace replayed to its end, which says nothing of the kind
python3 - "$TMP/dense.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("fio version 3 iolog\n0 d add\n0 d open\n")
    for i in range(2000):
        f.write("%d d read %d 4096\n" % (i * 125, (i % 1000) * 4096))
PY
"$IOMOON" run --format json --output "$TMP/cut.json" "$LUA_DIR/cut.lua" "$TMP/dense.log" >/dev/null 2>"$TMP/cut.err"
is $? 0 "a cut replay and a whole one, saved as JSON"
got=$(python3 - "$TMP/cut.json" <<'PY'
import json, sys
c, w = json.load(open(sys.argv[1]))["phases"]
r = c["replay"]
ok = (r["due_ios"] == 1000 and r["cut_ios"] == 1000 and r["missed_ios"] == 1000 - r["ios"] > 0
      and r["planned_ios"] == 2000 and abs(r["on_time_pct"] - 100.0 * r["on_time_ios"] / 1000) < 1e-9)
line = "replay cut: %d of 2000 records (missed %d, cut 1000)" % (r["ios"], r["missed_ios"])
print(ok, c.get("replay_cut") == line, w["replay"]["missed_ios"], w["replay"]["cut_ios"], "replay_cut" in w)
print(line)
PY
)
line=$(printf '%s\n' "$got" | sed -n 2p)
is "$(printf '%s\n' "$got" | sed -n 1p)" "True True 0 0 False" \
	"JSON: 1000 due of 2000, 1000 cut, the rest missed, on_time_pct of the due; '$line'; the whole one: 0 missed, 0 cut"
for f in table csv markdown html analyzer json; do
	out=$("$IOMOON" report "$TMP/cut.json" --format $f 2>&1)
	n=$(printf '%s\n' "$out" | grep -c "replay cut: ")
	printf '%s\n' "$out" | grep -qF "$line"
	ok $([ $? -eq 0 ] && [ "$n" -ge 1 ]; echo $?) "iomoon report --format $f of the saved JSON: '$line'"
	case $f in table | markdown | analyzer) is "$n" 1 "  $f: on the cut phase only, not on the one run to its end" ;; esac
done
out=$("$IOMOON" report "$TMP/cut.json" --format csv)
is "$(printf '%s\n' "$out" | python3 -c 'import csv, sys
rows = list(csv.DictReader(sys.stdin))
print([(r["Replay Records"], r["Replay Due"], r["Replay Cut"], r["Replay Status"] != "") for r in rows])')" \
	"[('2000', '1000', '1000', True), ('2000', '2000', '0', False)]" "CSV: the replay columns of both phases"
out=$("$IOMOON" run "$LUA_DIR/cut.lua" "$TMP/dense.log" 2>&1)
like "$out" "cut .*replay cut: [0-9]+ of 2000 records \(missed [0-9]+, cut 1000\)" \
	"iomoon run: the table says it as the phase ends"
# under mpirun every rank replays the whole trace: the ranks' figures add up
case "$IOMOON" in *asan*) mpi_ok="" ;; *) mpi_ok=1 ;; esac
if [ -n "$mpi_ok" ] && command -v mpirun >/dev/null && "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi '; then
	out=$(OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1 \
		timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$IOMOON" run \
		--format none --quiet "$LUA_DIR/mpi-cut.lua" "$TMP/dense.log" 2>&1)
	is "$out" $'4000\t2000\t2000\ttrue' "mpirun -n 2: 4000 planned, 2000 due, 2000 cut, the rest missed, over both ranks"
else
	skip "mpirun, MPI support, or a build outside ASan missing"
fi

# ---- iomoon replay: every flag reaches the result ----
python3 - "$TMP/t.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("fio version 3 iolog\n0 d add\n0 d open\n")
    for i in range(400):
        f.write("%d d %s %d 4096\n" % (i * 500, "write" if i % 4 == 0 else "read", (i * 7919 % 2048) * 4096))
    f.write("200000 d close\n")
PY
"$IOMOON" replay "$TMP/t.log" --target "$TMP/r.dat" --speed 2 --qd 8 --offsets wrap --loop 2 --format json \
	>"$TMP/r.json" 2>"$TMP/r.err"
is $? 0 "iomoon replay: exit 0"
fields=$(python3 - "$TMP/r.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
r = p["replay"]
print(r["speed"], r["offsets"], r["loop"], r["ios"], p["qd"], p["read"]["ios"] + p["write"]["ios"], p["name"])
PY
)
is "$fields" "2 wrap 2 800 8 800 replay of t.log" "iomoon replay: --speed, --offsets, --loop and --qd reach the result (800 I/Os: two passes)"
like "$(stat -c %s "$TMP/r.dat")" "^8388608$" "iomoon replay: a new target as large as the trace reaches (8 MiB)"
"$IOMOON" replay "$TMP/t.log" --engine sim --no-stall --qd 1 --format json >"$TMP/n.json" 2>/dev/null
is "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["phases"][0]["replay"]; print(r["no_stall"], r["lag_max_ns"])' "$TMP/n.json")" \
	"True 0" "iomoon replay --no-stall: in the result, and no lag"

# ---- bad input: exit 2, the option named, nothing created ----
out=$("$IOMOON" replay "$TMP/t.log" --target "$TMP/no.dat" --spede 2 2>&1)
is $? 2 "iomoon replay --spede: exit 2"
like "$out" "unknown option --spede \(did you mean --speed\?\)" "iomoon replay --spede: the option and the nearest name"
out=$("$IOMOON" replay "$TMP/t.log" --target "$TMP/no.dat" --speed 0 2>&1)
is $? 2 "iomoon replay --speed 0: exit 2"
like "$out" "speed: 0 is not a speed" "iomoon replay --speed 0: says what a speed is"
out=$("$IOMOON" replay "$TMP/missing.log" --target "$TMP/no.dat" 2>&1)
is $? 2 "iomoon replay of a missing trace: exit 2"
like "$out" "missing.log" "iomoon replay of a missing trace: names it"
[ ! -e "$TMP/no.dat" ]
ok $? "iomoon replay refused: no target created"

# ---- iomoon trace profile ----
out=$("$IOMOON" trace profile "$TMP/t.log" 2>&1)
is $? 0 "iomoon trace profile: exit 0"
like "$out" "400 I/Os over 0.200 s" "iomoon trace profile: the I/Os and the span"
like "$out" "read 75.0 %, write 25.0 %" "iomoon trace profile: the op shares"
out=$("$IOMOON" trace profil "$TMP/t.log" 2>&1)
is $? 2 "iomoon trace profil: exit 2"
# a trace that trims, on a file system that cannot punch holes (ramfs): the
# replay is named (not a mix the phase does not have), nothing is created
mkdir -p "$TMP/ramfs"
if mount -t ramfs ramfs "$TMP/ramfs" 2>/dev/null; then
	MOUNTS="$MOUNTS $TMP/ramfs"
	printf 'fio version 3 iolog\n0 d write 0 65536\n10 d trim 0 8192\n' >"$TMP/trim.log"
	out=$("$IOMOON" run "$LUA_DIR/trim-ramfs.lua" "$TMP/ramfs/t.dat" "$TMP/trim.log" 2>&1)
	is $? 2 "a trimming trace on ramfs: exit 2"
	like "$out" "phase.replay: trims .*cannot discard" "the message names phase.replay"
	[ ! -e "$TMP/ramfs/t.dat" ]
	ok $? "no target created on ramfs"
	umount_wait "$TMP/ramfs"
else
	skip "ramfs cannot be mounted here"
fi
done_testing
