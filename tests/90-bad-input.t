#!/usr/bin/env python3
"""Bad input at volume: 240 generated phase tables and 100 command lines,
each with at least one wrong field or option (wrong types, huge, negative,
NaN, missing, absurd combinations), fio options given without the value they
need, and IOMeter results.csv sheets with a column missing or a line longer
than any IOMeter writes. Every one must exit 2 with exactly one
line on stderr, print nothing on stdout, never crash or hang, and leave the
target directory as it was. Deterministic (seeded); the failing case is
printed in full."""
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOMOON = os.environ.get("IOMOON_BIN", os.path.join(ROOT, "iomoon"))
rnd = random.Random(20261129)
tmp = tempfile.mkdtemp(prefix="iomoon-test.")
os.environ["IOMOON_STATE_DIR"] = os.path.join(tmp, "state")  # verification state stays under tmp too
scripts = os.path.join(tmp, "scripts")
targets = os.path.join(tmp, "targets")
os.makedirs(scripts)
os.makedirs(targets)
# one existing file iomoon made, so that some cases get past the target
subprocess.run([IOMOON, "quick", "--target", os.path.join(targets, "have.dat"), "--size", "16m", "--ios", "1",
                "--quiet", "--format", "none"], check=True)
HAVE = os.path.join(targets, "have.dat")
NEW = os.path.join(targets, "new.dat")
# a burn-in script that takes arg[1] as the name of its target in `targets`
BURN = os.path.join(scripts, "burn.lua")
with open(BURN, "w") as f:
    f.write('require("iomoon").run { target = { path = "%s/" .. arg[1], size = "1m" }, bs = "64k", read = 0, ios = 1 }\n'
            % targets)

# (field, wrong values as Lua source): each value is wrong for its field
BAD = {
    "qd": ["0", "-1", "4097", "1.5", '"x"', "1e20", "0/0", "{}", "true"],
    "workers": ["0", "257", "-3", "2.5", '"two"'],
    "bs": ["0", '"3000"', '"0.3k"', '"128m"', "-4096", '"4kk"', '"-4k"', "{}", '{{"4k", 50}}', "true", "math.huge"],
    "read": ["-1", "101", '"all"', "1e9", "0/0", "-math.huge"],
    "random": ["-0.5", "100.5", '"half"', "{}"],
    "align": ["0", '"100"', '"x"'],
    "region": ['"1t"', '{offset = "100"}', "{size = 0}", '{offset = "15m", size = "2m"}', '"0"', '{offset = -1}',
               '{bogus = 1}'],
    "seq_start": ['"1t"', '"16m"', "-1", '"1q"', "{}", "true"],
    "random_map": ['"yes"', "1", "{}"],
    "duration": ["0", "-1", '"5 parsecs"', '"abc"', "1e300", "{}"],
    "ramp": ["-2", '"soon"'],
    "ios": ["0", "-5", "1.5", '"many"'],
    "bytes": ["0", '"lots"', "-1"],
    "rate": ["0", "-5", "{iops = 0}", "{iops = 1e12}", '{iops = 5, arrival = "bursty"}', '"fast"', "{}"],
    "think": ['{burst = 0, delay = "1ms"}', '{uniform = {"5ms", "1ms"}}', "{}", '{burst = 4}', '"slow"',
              '{fixed = "1ms", exponential = "2ms"}', '{delay = "1ms"}'],
    "schedule": ["{}", "{{iops = 5}}", "{{duration = 1, iops = -1}}", "5", '{{duration = 1, iops = 5, x = 1}}'],
    "dist": ['"zipf:1"', '"pareto:0"', '"normal:0"', '"zoned:10/10"', '"gauss"', '"zipf:x"', "5",
             '"zoned:50/50:40/50"', '"pareto:"'],
    "pattern": ['"ones"', "5"],
    "verify": ['"crc"', "5"],
    "engine": ['"warp"', "5", '""'],
    "mix": ["{}", '{{bs = "4k", weight = 50}}', '{{bs = "4k", weight = 150}}', '"x"',
            '{{bs = "4k", read = 50, bogus = 1}}', '{{bs = "4k", weight = 50}, {bs = "8k"}}', "{5}"],
    "interval": ['"1ms"', "0", "-1"],
    "on_error": ['"retry"', "true"],
    "trace": ["-1", "1e12", '"all"'],
    "seed": ["-1", '"x"', "0.5"],
    "batch": ["0", "1000000"],
    "sim_latency": ['"1ms"'],   # with a real engine: refused
    "sqpoll": ["5", "true"],    # true with libaio below, or a number
    "iodepth": ["32"],          # fio's name: unknown here
    "meta": ["5"],
    "direct": ['"yes"', "1"],
    "name": ["{}", "true"],
    "target": ['"/dev/null"', "5", '{path = "%s", size = 0}' % NEW, "{path = 5}", '"%s/none.dat"' % targets,
               '{path = "%s"}' % NEW, '{path = "%s", size = "16m", fill = "ones"}' % NEW, "{}",
               '{path = "%s", sz = 1}' % NEW],
}
# values that are fine, to mix in around the wrong one
GOOD = {
    "qd": ["1", "4", "32"], "workers": ["1", "2"], "bs": ['"4k"', '"64k"', "512"], "read": ["0", "50", "100"],
    "random": ["0", "100"], "duration": ['"0.1s"', "0.05"], "ramp": ["0"], "seed": ["7"],
    "dist": ['"zipf:1.2"', '"uniform"'], "pattern": ['"zero"'], "interval": ['"50ms"'],
}


def phase_source(case):
    fields = dict(target='{path = "%s", size = "16m"}' % NEW, bs='"4k"', duration='"0.1s"')
    for _ in range(rnd.randint(0, 2)):
        k = rnd.choice(list(GOOD))
        fields[k] = rnd.choice(GOOD[k])
    bad_field = rnd.choice(list(BAD))
    fields[bad_field] = rnd.choice(BAD[bad_field])
    if bad_field == "mix":
        fields.pop("bs", None)
    if bad_field == "sqpoll" and fields["sqpoll"] == "true":
        fields["engine"] = '"libaio"'
    if case % 7 == 0:  # an absurd combination on top
        fields.update(qd="4096", bs='"64m"', workers="256")
        fields["target"] = '{path = "%s", size = "1t"}' % NEW
    body = ", ".join("%s = %s" % kv for kv in fields.items())
    return 'require("iomoon").run { %s }\n' % body


def cli_case():
    q = NEW
    cases = [
        ["quick", "--target", q, "--size", "16m", "--qd", rnd.choice(["0", "x", "-1", "99999", "", "1e3"])],
        ["quick", "--target", q, "--size", rnd.choice(["-1g", "0", "abc", "1q", "1e400"])],
        ["quick", "--target", q, "--size", "16m", "--bs", rnd.choice(["3000", "0", "128m", "x", "-4k"])],
        ["quick", "--target", q, "--size", "16m", "--read", rnd.choice(["150", "-5", "x"])],
        ["quick", "--target", q, "--size", "16m", "--time", rnd.choice(["0", "-1", "5 weeks", "x"])],
        ["quick", "--target", q, "--size", "16m", "--engine", rnd.choice(["warp", "", "IO_URING"])],
        ["quick", "--target", q, "--size", "16m", "--rate", rnd.choice(["0", "-1", "fast"])],
        ["quick", "--target", q, "--size", "16m", "--dist", rnd.choice(["zipf", "zipf:1", "zoned:1/1"])],
        ["quick", "--target", q, "--size", "16m", "--" + rnd.choice(["iodpth", "frob", "x"]), "1"],
        ["quick", "--target", q, "--size", "16m", "--format", rnd.choice(["xml", "", "JSON"])],
        ["quick", "--size", "16m"],
        ["quick", "--target", q, "--size", "16m", "--qd"],
        ["quick", "--target", "/dev/null"],
        ["quick", "--target", q],
        ["quick", "--target", q, "--size", "16m", "--engine", "psync", "--qd", "8"],
        ["quick", "--target", q, "--size", "16m", "--workers", rnd.choice(["0", "257", "x"])],
        ["suite", rnd.choice(["nope", "../etc/passwd", "", "-x"]), "--target", q],
        ["suite", "quick", "--target", q, "--size", "16m", "--qd", rnd.choice(["0", "x"])],
        ["suite", "quick", "--target", q, "--size", "16m", "--frob"],
        ["suite", "quick", "--target", q, "--size", "16m", "--time", "x"],
        ["ping"],
        ["ping", HAVE, "-c", rnd.choice(["1.5", "x", "-1"])],
        ["ping", HAVE, "-D", "-s", rnd.choice(["3000", "0", "1g", "x"])],
        ["ping", HAVE, "-i", rnd.choice(["x", "-1s"])],
        ["ping", HAVE, HAVE],
        ["ping", "/dev/null"],
        ["run"],
        ["run", os.path.join(targets, "missing.lua")],
        [rnd.choice(["frob", "runn", "QUICK", "--frob"])],
        ["run", "--format", "yaml", HAVE],
        ["run", BURN, rnd.choice(["--format", "--output", "--quiet", "--format=json", "--output=r.json"]), "burn.dat"],
    ]
    return rnd.choice(cases)


def run_case(argv, source=None):
    before = sorted(os.listdir(targets))
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    except subprocess.TimeoutExpired:
        return False, "hung (30 s)"
    # bytes that are not UTF-8 are shown escaped and said (once seen under ASan in CI, not
    # reproduced: the case is named here so that the next run that meets it tells which)
    try:
        p.stderr.decode("utf-8")
    except UnicodeDecodeError:
        print("# not UTF-8 on stderr of %r: %r" % (argv[1:], p.stderr[-300:]))
    p.stdout = p.stdout.decode("utf-8", "backslashreplace")
    p.stderr = p.stderr.decode("utf-8", "backslashreplace")
    after = sorted(os.listdir(targets))
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    problems = []
    if p.returncode != 2:
        problems.append("exit %d" % p.returncode)
    if len(lines) != 1 or not lines[0].startswith("iomoon"):
        problems.append("stderr not one 'iomoon...' line: %r" % p.stderr[-500:])
    if p.stdout.strip():
        problems.append("stdout: %r" % p.stdout[-200:])
    if before != after:
        problems.append("the directory changed: %s -> %s" % (before, after))
        for f in set(after) - set(before):
            os.remove(os.path.join(targets, f))
    return not problems, "; ".join(problems)


n = failed = 0
for i in range(240):
    src = phase_source(i)
    path = os.path.join(scripts, "case%03d.lua" % i)
    with open(path, "w") as f:
        f.write(src)
    good, why = run_case([IOMOON, "run", "--quiet", path])
    n += 1
    print("%sok %d - phase table %d: exit 2, one line, nothing written%s" % ("" if good else "not ", n, i,
          "" if good else " (%s)" % why))
    if not good:
        failed += 1
        print("#   " + src.strip())
for i in range(100):
    argv = cli_case()
    good, why = run_case([IOMOON] + argv)
    n += 1
    print("%sok %d - command line %d: exit 2, one line, nothing written%s" % ("" if good else "not ", n, i,
          "" if good else " (%s)" % why))
    if not good:
        failed += 1
        print("#   iomoon " + " ".join(repr(a) for a in argv))
# fio options that need a value, given bare (in a job file and on the
# command line) or empty: exit 2 naming the option and its line, no traceback
BARE = ["bs", "rw", "filename", "directory", "ioengine", "name", "random_distribution", "rate", "rate_iops",
        "rate_min", "rate_iops_min", "bsrange", "bssplit", "blockalign", "percentage_random", "uri"]
NEWFILE = os.path.join(targets, "f.dat")


def named(argv, want):
    """run_case, and the one line names want"""
    good, why = run_case(argv)
    if not good:
        return good, why
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    if want not in p.stderr.decode("utf-8", "replace"):
        good, why = False, "the message does not name %r: %r" % (want, p.stderr[-300:])
    return good, why


def case(desc, good, why, shown):
    global n, failed
    n += 1
    print("%sok %d - %s: exit 2, one line naming it, nothing written%s" % ("" if good else "not ", n, desc,
          "" if good else " (%s)" % why))
    if not good:
        failed += 1
        print("#   " + shown)


for o in BARE:
    job = os.path.join(scripts, "bare_%s.fio" % o)
    with open(job, "w") as f:
        f.write("[j]\nrw=randrw\nfilename=%s\nsize=1m\n%s\n" % (NEWFILE, o))
    for verb in ("convert", "fio"):
        good, why = named([IOMOON, verb, job], "bare_%s.fio:5: %s: needs a value" % (o, o))
        case("fio option %s without a value (iomoon %s)" % (o, verb), good, why, open(job).read())
for argv, want in (([IOMOON, "fio", "--name=j", "--filename=" + NEWFILE, "--size=1m", "--rw", "--bs"], "--rw: needs a value"),
                   ([IOMOON, "fio", "--name=j", "--filename=" + NEWFILE, "--size=1m", "--rw=read", "--bs="], "--bs: needs a value"),
                   ([IOMOON, "fio", "--name=j", "--filename=" + NEWFILE, "--size=1m", "--rw=read", "--bs", "--runtime=1"],
                    "--bs: needs a value")):
    good, why = named(argv, want)
    case("fio command line " + " ".join(argv[2:]), good, why, " ".join(argv))

# IOMeter's results.csv: a column missing; a line longer than any IOMeter writes
with open(os.path.join(ROOT, "tests", "iometer", "results.csv")) as f:
    sheet = f.read()
rc = os.path.join(scripts, "rc.csv")
with open(rc, "w") as f:
    f.write(sheet.replace("Target Name,Access Specification Name,", "Target Name,"))
good, why = named([IOMOON, "report", rc], "rc.csv:14: no 'Access Specification Name' column")
case("results.csv without the Access Specification Name column", good, why, "iomoon report rc.csv")
lines = sheet.split("\n")
lines.insert(48, lines[47] * 2500)  # 1.1 MB: past the 1 MiB bound
long_csv = os.path.join(scripts, "long.csv")
with open(long_csv, "w") as f:
    f.write("\n".join(lines))
good, why = named([IOMOON, "report", long_csv], "long.csv:49: a line of 1137500 bytes")
case("results.csv with a 1.1 MB line", good, why, "iomoon report long.csv")
# the traps of a share and of fio's names, each case fixed: exit 2, one line
# that says what was meant, nothing created (the target is a new file)
TRAPS = [
    (["quick", "--target", NEW, "--size", "16m", "--read", "0.7"], "--read: 0.7 means 0.7 %, not 70 %", "did you mean 70?"),
    (["quick", "--target", NEW, "--size", "16m", "--random", "0.5"], "--random: 0.5 means 0.5 %, not 50 %", "did you mean 50?"),
    ('read = 0.7', "phase.read: 0.7 means 0.7 %, not 70 %", "did you mean 70?"),
    ('random = 0.25', "phase.random: 0.25 means 0.25 %, not 25 %", "did you mean 25?"),
    ('iodepth = 8', "phase: unknown field 'iodepth', fio's name", "did you mean qd?"),
    ('numjobs = 2', "phase: unknown field 'numjobs', fio's name", "did you mean workers?"),
    ('rw = "randrw"', "phase: unknown field 'rw', fio's name", "did you mean read and random"),
    ('runtime = 5', "phase: unknown field 'runtime', fio's name", "did you mean duration?"),
    ('blocksize = "8k"', "phase: unknown field 'blocksize', fio's name", "did you mean bs?"),
]
for i, (trap, says, means) in enumerate(TRAPS):
    if isinstance(trap, list):
        argv, shown = [IOMOON] + trap, "iomoon " + " ".join(trap)
    else:
        path = os.path.join(scripts, "trap%02d.lua" % i)
        with open(path, "w") as f:
            f.write('require("iomoon").run { target = { path = "%s", size = "16m" }, bs = "4k", duration = "0.1s", %s }\n'
                    % (NEW, trap))
        argv, shown = [IOMOON, "run", "--quiet", path], trap
    good, why = run_case(argv)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if good and not (says in p.stderr and means in p.stderr):
        good, why = False, "stderr: %r" % p.stderr
    n += 1
    print("%sok %d - %s: refused, saying what was meant%s" % ("" if good else "not ", n, shown,
          "" if good else " (%s)" % why))
    failed += not good
print("1..%d" % n)
shutil.rmtree(tmp)
sys.exit(1 if failed else 0)
