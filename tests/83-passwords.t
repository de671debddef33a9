#!/bin/bash
# A URL's password is never shown (doc/cli.md, "Passwords"): every verb that
# takes a target, given a URL with a password (libiscsi's user%password and
# a URI's user:password, the scheme in lower, upper and mixed case, and a
# query's target_password=), prints it neither on stdout nor on stderr nor
# in --output files; an upper-case scheme is a URL, not a path; names that
# quote a URL lose its password in the progress line, in every report
# format and in the live outputs (--metrics-file, --live); report,
# compare, rerun and convert leave it out of what they read;
# and a live NBD export (nbdkit) writes every report without it.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
mkdir in out
PW='Sekr1t-Pa55w0rd'
# a port on 127.0.0.1 that nothing listens on: every connection is refused at once
CP=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
IQN=iqn.2026-11.org.example:lun
URLS=("iscsi://alice%$PW@127.0.0.1:$CP/$IQN/1" "ISCSI://alice%$PW@127.0.0.1:$CP/$IQN/1"
	"IsCsI://alice:$PW@127.0.0.1:$CP/$IQN/1" "nbd://alice:$PW@127.0.0.1:$CP/x" "NBD://alice:$PW@127.0.0.1:$CP/x"
	"iscsi://127.0.0.1:$CP/$IQN/1?target_user=bob&target_password=$PW")
# what each is shown as
SHOWN=("iscsi://alice@127.0.0.1:$CP/$IQN/1" "iscsi://alice@127.0.0.1:$CP/$IQN/1" "iscsi://alice@127.0.0.1:$CP/$IQN/1"
	"nbd://alice@127.0.0.1:$CP/x" "nbd://alice@127.0.0.1:$CP/x" "target_password=")
# shows FILES...: the names of those that hold the password (none, or a leak)
shows() { grep -l -- "$PW" "$@" 2>/dev/null | tr '\n' ' '; }

# inputs: a results file, a trace, job files, an IOMeter file, scripts
"$IOMOON" quick --engine sim --time 0.1 --quiet --format json --output in/r.json
printf 'fio version 3 iolog\n0 d add\n0 d open\n0 d read 0 4096\n500 d read 8192 4096\n1000 d close\n' >in/app.iolog
printf '[j]\nrw=randread\nfilename=plain.dat\nsize=1m\nruntime=1\ntime_based\n' >in/plain.fio
cp "$T/iometer/openperformancetest.icf" in/opt.icf
cp "$LUA_DIR/t.lua" "$LUA_DIR/bug.lua" "$LUA_DIR/target.lua" in/

for i in "${!URLS[@]}"; do
	U=${URLS[$i]} S=${SHOWN[$i]}
	# the URL as fio writes it in a job file: its colons escaped
	printf '[j]\nrw=randread\nfilename=%s\nruntime=1\ntime_based\n' "${U//:/\\:}" >in/j$i.fio
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		eval "set -- $line"
		timeout 60 "$IOMOON" "$@" >out/$i.$n.out 2>out/$i.$n.err
		rc=$?
		files=(out/$i.$n.out out/$i.$n.err)
		[ -e out/$i.$n.json ] && files+=(out/$i.$n.json)
		is "$rc:$(shows "${files[@]}")" "$rc:" "URL $i ($(printf '%s' "$U" | cut -c1-12)...): iomoon $1: no password shown (exit $rc)"
		case $1 in convert) want=0 ;; *) want=nonzero ;; esac
		if [ $want = 0 ]; then ok $rc "... convert: exit 0"; else [ $rc -ne 0 ]; ok $? "... exit $rc: the target was refused"; fi
	done <<-EOF
		quick --target "\$U" --time 0.2 --quiet --format json --output out/$i.\$n.json
		suite quick --target "\$U" --time 0.1 --quiet --format json --output out/$i.\$n.json
		replay in/app.iolog --target "\$U" --quiet --format json --output out/$i.\$n.json
		rerun in/r.json --target "\$U" --quiet --format json --output out/$i.\$n.json
		fio --name=j --filename="\$U" --rw=randread --size=1m --runtime=1 --time_based --quiet
		fio in/j$i.fio --quiet --format json --output out/$i.\$n.json
		fio in/plain.fio --target "\$U" --quiet
		suite in/opt.icf --target "\$U" --time 0.1 --quiet
		run --quiet --format json --output out/$i.\$n.json in/t.lua "\$U"
		run in/bug.lua "\$U"
		run in/target.lua "\$U"
		ping -c 1 "\$U"
		"\$U"
		convert in/j$i.fio
	EOF
	# the engines' own words, and the URL as it is shown
	like "$(cat out/$i.1.err)" "^iomoon quick: .*$(printf '%s' "$S" | sed 's/[.?&]/\\&/g')" "URL $i: quick names the target without its password"
done
# an upper-case scheme is a URL: nothing named ISCSI:... is created as a file
[ ! -e ISCSI: ] && [ ! -e NBD: ] && [ ! -e IsCsI: ]; ok $? "an upper-case scheme is not taken for a path (nothing created)"
like "$(cat out/1.1.err)" "cannot connect and log in: .*Connection refused" "ISCSI://: engine iscsi tried to log in"
like "$(cat out/4.1.err)" "cannot connect: .*Connection refused" "NBD://: engine nbd tried to connect"
like "$(cat out/0.12.err)" "iomoon ping: iscsi://alice@127.0.0.1:$CP/$IQN/1: a URL \(iomoon ping measures a directory" \
	"ping of a URL: says it measures files, without the password"
grep -q '^-- A URL.s password is left out of this plan: give it in LIBISCSI_CHAP_PASSWORD' out/0.14.out
ok $? "convert: the plan says that the password was left out"
like "$(cat out/0.14.out)" "path = \"iscsi://alice@127.0.0.1:$CP/$IQN/1\"" "... and names the target without it"

# ---- names that quote a URL: the progress line and every report format ----
NAME="to iscsi://alice%$PW@h/$IQN/1 x"
if command -v script >/dev/null; then
	script -qec "$(printf '%q ' "$IOMOON" quick --engine sim --time 1.2 --name "$NAME")" /dev/null >out/pty.txt 2>&1
	like "$(tr '\r' '\n' <out/pty.txt | grep -a '^.\[K\[to ' | head -1)" "\[to iscsi://alice@h/$IQN/1 x\] " \
		"the progress line (a terminal) shows the name without the password"
	is "$(shows out/pty.txt)" "" "... and no line on the terminal has it"
else
	skip "no script(1): no terminal for the progress line"
fi
for f in table csv json analyzer markdown html fio-json; do
	"$IOMOON" quick --engine sim --time 0.1 --quiet --name "$NAME" --format $f --output out/name.$f 2>out/name.$f.err
	is "$?:$(shows out/name.$f out/name.$f.err)" "0:" "a name quoting a URL: --format $f without the password"
done
grep -q 'to iscsi://alice@h/' out/name.json; ok $? "... the name is kept, without it"
# the live outputs (--metrics-file, mode 0644; --live) carry the name as the report does
"$IOMOON" quick --engine sim --time 1.2 --quiet --name "$NAME" --format none --metrics-file out/name.prom \
	--live out/name.jsonl 2>out/name.live.err
is "$?:$(shows out/name.prom out/name.jsonl out/name.live.err)" "0:" "a name quoting a URL: --metrics-file and --live without the password"
grep -q 'phase="to iscsi://alice@h/' out/name.prom; ok $? "... the label keeps the name, without it"

# ---- report, compare, rerun: a file that holds a password does not show it ----
python3 - "$PW" <<'PY'
import json, sys
pw = sys.argv[1]
d = json.load(open("in/r.json"))
p = d["phases"][0]
url = "iscsi://alice%%%s@127.0.0.1:1/iqn.x/1" % pw
p["name"] = "on " + url
p["target"] = url
p["definition"]["target"] = {"path": url}
p["meta"] = {"note": "nbd://u:%s@h/x" % pw}
json.dump(d, open("in/pw.json", "w"))
PY
for f in table csv json analyzer markdown html fio-json; do
	"$IOMOON" report in/pw.json --format $f --output out/rep.$f 2>out/rep.$f.err
	is "$?:$(shows out/rep.$f out/rep.$f.err)" "0:" "report of a file with a password: --format $f without it"
done
# paired by position (the names differ): its name and target in the rows and the warnings
"$IOMOON" compare in/pw.json in/r.json --pair-by position --format csv >out/cmp.csv 2>&1
is "$?:$(shows out/cmp.csv)" "0:" "compare: without it"
grep -q '"warning","the target differs' out/cmp.csv; ok $? "compare: ... also in the warning naming its target"
"$IOMOON" rerun in/pw.json --quiet >out/rerun.out 2>&1
is "$(shows out/rerun.out)" "" "rerun of its definition: without it (exit $?)"
python3 -c "
import json; d = json.load(open('out/rep.json')); p = d['phases'][0]
assert p['target'] == 'iscsi://alice@127.0.0.1:1/iqn.x/1' and p['meta']['note'] == 'nbd://u@h/x', p" 2>&1
ok $? "... the URL kept without its password, in the target, the definition and meta"

# ---- a live NBD export: every report of a run, and the verbs that run on it ----
# (quotas end the phases: what is looked at is text, not figures)
if command -v nbdkit >/dev/null; then
	cat >in/live.sh <<'EOF'
U="nbd+unix://alice:$PW@/?socket=$unixsocket"
for f in table csv json analyzer markdown html fio-json; do
	"$IOMOON" quick --target "$U" --time 0.2 --ios 500 --qd 4 --format $f --output out/live.$f || echo "quick $f: $?"
done
"$IOMOON" run --format json --output out/live.run.json in/t.lua "$U" || echo "run: $?"
"$IOMOON" fio --name=j --ioengine=nbd --filename="$U" --rw=randread --runtime=200ms --time_based --format json \
	--output out/live.fio.json || echo "fio: $?"
"$IOMOON" replay in/app.iolog --target "$U" --format csv --output out/live.replay.csv || echo "replay: $?"
"$IOMOON" rerun out/live.json --target "$U" --format json --output out/live.rerun.json || echo "rerun: $?"
"$IOMOON" suite quick --target "$U" --allow-write --time 0.5 --ios 200 --ramp 0 --format markdown --output out/live.suite.md || echo "suite: $?"
EOF
	PW=$PW IOMOON=$IOMOON nbdkit -U - memory 64M --run '. ./in/live.sh' >out/live.out 2>out/live.err
	is "$?:$(cat out/live.out)" "0:" "a live export: quick in every format, run, fio, replay, rerun, suite all ran" ||
		sed 's/^/#   stderr: /' out/live.err
	is "$(shows out/live.* | wc -w)" 0 "... and no report, stdout or stderr of theirs holds the password"
	like "$(cat out/live.json)" '"target": "nbd\+unix://alice@/\?socket=' "... the result names the export without it"
	is "$(ls out/live.* | wc -l)" 14 "... all twelve reports were written (beside stdout and stderr)"
else
	skip "nbdkit is not installed: no live export"
fi

# ---- a short password that is a word: cut where it is the password, not from the text's own words ----
if command -v nbdkit >/dev/null; then
	IOMOON=$IOMOON nbdkit -U - memory 16M --run '"$IOMOON" quick --target "nbd+unix://alice:Read@/?socket=$unixsocket" --ios 200 --qd 4 --format csv --output out/short.csv' >out/short.out 2>&1
	is "$?:$(cat out/short.out)" "0:" "a live export with the password 'Read': quick ran"
	like "$(head -1 out/short.csv)" '"IOps","Read IOps","Write IOps","MBps \(Binary\)","Read MBps \(Binary\)"' "... the CSV's column names keep 'Read'"
	like "$(sed -n 2p out/short.csv)" '^"FILE","nbd\+unix://alice@/\?socket=[^"]*","4K; 100% Read; 100% random; QD 4",' "... the test name keeps it, the URL is shown without the password"
	grep -q 'alice:Read@' out/short.csv; is $? 1 "... and no URL holds it"
else
	skip "nbdkit is not installed: no live export"
fi
done_testing
