#!/bin/bash
# Traces read and saved (doc/replay.md): see tests/lua/trace_load.lua; here
# what needs the command line or fio.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/trace_load.lua" "$T" "$TMP"

# a saved trace of a phase with streams puts each record on the file its
# I/O went to (tests/lua/trace_targets.lua): checked record by record here,
# replayed onto the files, and each file replayed alone from the command
# line is created no larger than the file it was recorded on
mkdir "$TMP/tt"
lua_tap "$T/lua/trace_targets.lua" "$T" "$TMP/tt"
for f in data1:224 data2:96 wal1:32 wal2:16; do
	"$IOMOON" replay "$TMP/tt/saved.0.csv" --device "$TMP/tt/${f%%:*}.0.dat" --target "$TMP/tt/re.${f%%:*}" \
		--format none --quiet 2>"$TMP/re.err"
	ok $? "iomoon replay of ${f%%:*}'s records alone"
	size=$(stat -c %s "$TMP/tt/re.${f%%:*}" 2>/dev/null)
	ok $([ "${size:-0}" -gt 0 ] && [ "${size:-0}" -le $((${f#*:} * 1048576)) ]; echo $?) \
		"  creates a file no larger than ${f%%:*} (${f#*:} MiB): ${size:-no} bytes"
	rm -f "$TMP/tt/re.${f%%:*}"
done
# and under mpirun, each rank its own files ({rank} in the paths): not
# under ASan (Open MPI's allocations are not ours), as tests/93-cluster.t
case "$IOMOON" in *asan*) mpi_ok="" ;; *) mpi_ok=1 ;; esac
if [ -n "$mpi_ok" ] && command -v mpirun >/dev/null && "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi '; then
	mkdir "$TMP/mpi"
	OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1 \
		timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$IOMOON" run --format none \
		--quiet "$T/lua/trace_targets.lua" "$T" "$TMP/mpi" >"$TMP/mpi.out" 2>&1
	ok $? "mpirun -n 2: each rank saves and replays its own trace"
	for rank in 0 1; do
		good=$(grep -c '^ok ' "$TMP/mpi/tap.$rank" 2>/dev/null)
		bad=$(grep -c '^not ok ' "$TMP/mpi/tap.$rank" 2>/dev/null)
		ok $([ "${good:-0}" -eq 9 ] && [ "${bad:-1}" -eq 0 ]; echo $?) \
			"rank $rank: its saved records on its own files, record by record ($good of 9 checks hold)"
		grep '^not ok ' "$TMP/mpi/tap.$rank" 2>/dev/null | sed 's/^/# /'
	done
	[ -s "$TMP/mpi/tap.0" ] || sed 's/^/# /' "$TMP/mpi.out"
else
	skip "mpirun, MPI support, or a build outside ASan missing"
fi

# a malformed line through the command line: exit 2, one line naming it
python3 "$T/trace_gen.py" iolog3 "$TMP/bad.iolog" --n 20 --bad 8
err=$("$IOMOON" run --quiet --format none "$LUA_DIR/load.lua" "$TMP/bad.iolog" 2>&1 >/dev/null)
is "$?" 2 "a malformed trace line: exit 2"
like "$err" "bad.iolog: line 8: read without its offset and length" "the message names the file and line 8"
is "$(printf '%s\n' "$err" | wc -l)" 1 "one line on stderr"

# fio replays what trace.save writes: as many I/Os as the trace holds
if command -v fio >/dev/null; then
	n=$("$IOMOON" run --quiet --format none "$LUA_DIR/save.lua" "$TMP/fio.dat" "$TMP/run.iolog")
	is "$n" 300 "a run's 300 I/Os saved as an iolog"
	out=$(fio --name=replay --read_iolog="$TMP/run.iolog" --replay_redirect="$TMP/fio.dat" --ioengine=psync \
		--output-format=json 2>"$TMP/fio.err")
	ok $? "fio --read_iolog accepts the saved iolog"
	ios=$(printf '%s' "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]
print(j["read"]["total_ios"] + j["write"]["total_ios"])' 2>/dev/null)
	is "$ios" 300 "fio replayed the 300 I/Os of the trace"
	[ "$ios" = 300 ] || sed 's/^/# /' "$TMP/fio.err"
else
	skip "fio is not installed"
fi
# hostile files: a FIFO without a writer and a device are refused at once
# (exit 2, no hang); a line over the 1 MiB buffer and a NUL byte are input
# errors naming their line
mkfifo "$TMP/fifo"
for f in "$TMP/fifo" /dev/zero; do
	err=$(timeout 20 "$IOMOON" trace profile "$f" --trace-format iolog 2>&1 >/dev/null)
	is "$?" 2 "$f: refused (exit 2), not read"
	like "$err" "not a regular file" "$f: the message says why"
done
{ echo "fio version 3 iolog"; head -c 1100000 /dev/zero | tr '\0' 7; echo; } >"$TMP/long.iolog"
err=$("$IOMOON" trace profile "$TMP/long.iolog" 2>&1 >/dev/null)
is "$?" 2 "a line over 1 MiB: exit 2"
like "$err" "long.iolog: line 2: longer than 1048576 bytes" "the message names line 2"
printf 'fio version 3 iolog\n0 d read 0 4096\n5 d read 0 4096\0junk\n' >"$TMP/nul.iolog"
err=$("$IOMOON" trace profile "$TMP/nul.iolog" 2>&1 >/dev/null)
is "$?" 2 "a NUL byte inside a line: exit 2"
like "$err" "nul.iolog: line 3: a NUL byte at column 16" "the message names line 3 and the column"
done_testing
