#!/usr/bin/env python3
# truth.py POINTS: for each line "RESULT.json LOG [atomic]" of POINTS,
# what iomoon classed after a crash (result.crash of the first phase)
# against the ground truth the disk logged (crashdisk.c): the same count
# in every class, the same first offsets, and result.failed when a unit
# should fail it. Prints a line per point: "RESULT.json: ok", or what
# differs.
import json, sys

UNIT = 4096
SECT = UNIT // 512
CLASSES = ["durable_ok", "lost_durable", "unflushed_kept", "unflushed_lost", "torn", "corrupt",
           "misdirected", "foreign"]


def judge(u, d, w, secs):
    gens = [g for g, f in secs]
    fors = [f for g, f in secs]
    if all(f < 0 for f in fors):  # nothing persisted: blank
        return "lost_durable" if d else "unflushed_lost" if w else None
    if len(set(gens)) == 1 and all(f >= 0 for f in fors) and all(fors[k] == fors[0] + k for k in range(SECT)):
        if fors[0] != u * SECT:
            return "misdirected"
        g = gens[0]
        return ("durable_ok" if g >= d else "lost_durable") if d else "unflushed_kept"
    seen = []
    for k, (g, f) in enumerate(secs):
        if f < 0:
            seen.append(0)
        elif f == u * SECT + k:
            seen.append(g)
        else:
            return "corrupt"
    if min(seen) == max(seen):
        return "corrupt"
    return "lost_durable" if d and min(seen) < d else "torn"


def point(result, log, atomic):
    res = json.load(open(result))["phases"][0]
    want = {c: [] for c in CLASSES}
    for line in open(log):
        if line.startswith("#"):
            continue
        v = [int(x) for x in line.split()]
        u, d, w = v[0], v[1], v[2]
        secs = [(v[3 + 2 * k], v[4 + 2 * k]) for k in range(SECT)]
        c = judge(u, d, w, secs)
        if c:
            want[c].append(u * UNIT)
    got = res.get("crash")
    if not got:
        return "no result.crash in the result"
    bad = []
    for c in CLASSES:
        if got[c] != len(want[c]):
            bad.append("%s: iomoon %d, the disk %d" % (c, got[c], len(want[c])))
        if c != "durable_ok" and list(got["offsets"].get(c) or []) != sorted(want[c])[:16]:
            bad.append("%s offsets: iomoon %s, the disk %s" % (c, got["offsets"][c], sorted(want[c])[:16]))
    failing = len(want["lost_durable"]) + len(want["corrupt"]) + len(want["misdirected"]) + \
        (len(want["torn"]) if atomic else 0)
    if bool(res["failed"]) != (failing > 0):
        bad.append("failed: %s, but %d units should fail it" % (res["failed"], failing))
    return "; ".join(bad) if bad else "ok"


for line in open(sys.argv[1]):
    w = line.split()
    print("%s: %s" % (w[0], point(w[0], w[1], len(w) > 2)))
