# check_names.py RESULTS.json QD WORKERS: prints "ok" when every phase of
# a run made with --qd QD (and --workers WORKERS, when above 1) ran at QD
# and says so in its name: a name stating "QD n" states QD, any other
# shows "--qd QD"; with WORKERS > 1 the name shows "--workers WORKERS".
# Else one line per phase that does not.
import json
import re
import sys

doc = json.load(open(sys.argv[1]))
qd, workers = int(sys.argv[2]), int(sys.argv[3])
bad = []
for p in doc["phases"]:
    name = p["name"]
    stated = re.findall(r"QD\s*(\d+)", name)
    if p["qd"] != qd:
        bad.append("%s: ran at QD %d, not %d" % (name, p["qd"], qd))
    if stated and any(int(n) != qd for n in stated):
        bad.append("%s: states QD %s, ran at %d" % (name, "/".join(stated), qd))
    if not stated and ("--qd %d" % qd) not in name:
        bad.append("%s: neither states its QD nor shows --qd %d" % (name, qd))
    if workers > 1 and ("--workers %d" % workers) not in name:
        bad.append("%s: does not show --workers %d" % (name, workers))
print("\n".join(bad) if bad else "ok")
