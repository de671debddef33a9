#!/usr/bin/env python3
"""tests/pts/check_pts.py RESULTS.json AREA_BYTES MAX_ROUNDS: a SNIA PTS IOPS
run (iomoon suite snia-pts-iops --format json) checked from the phases'
meta.pts alone, by the specification's rule written out again here (not
iomoon's code), as key=value lines for tests/74-snia-pts.t:

  purge               1 when the first phase is the purge
  precondition_bytes  bytes written by the phases with precondition = true
  rounds              the rounds run
  cells_ok            1 when every round has the 56 cells, in the
                      specification's order (mix outer: 100/0 ... 0/100;
                      block size inner: 1024 ... 0.5 KiB), all random,
                      each phase's own mix the one its meta.pts says
  steady_round        the first round n >= 5 whose rounds n-4..n pass the
                      rule (range <= 20 % of the mean, the least-squares
                      line's excursion <= 10 % of it), or 0
  stop_ok             1 when the run stopped where the rule says: at
                      steady_round, or after MAX_ROUNDS without one
  claim_ok            1 when the document's "pts" summary says the same
                      (steady, rounds, window)
  area_ok             1 when the plan's test area is AREA_BYTES
"""
import json, sys

BS = [1048576, 131072, 65536, 32768, 16384, 8192, 4096, 512]
MIX = [100, 95, 65, 50, 35, 5, 0]


def steady(ys):
    n = len(ys)
    mean = sum(ys) / n
    xm = (n + 1) / 2
    slope = sum((i + 1 - xm) * (y - mean) for i, y in enumerate(ys)) / sum((i + 1 - xm) ** 2 for i in range(n))
    return mean != 0 and max(ys) - min(ys) <= 0.20 * abs(mean) and abs(slope) * (n - 1) <= 0.10 * abs(mean)


def main():
    doc = json.load(open(sys.argv[1]))
    area, max_rounds = int(sys.argv[2]), int(sys.argv[3])
    phases = doc["phases"]
    metas = [p["meta"]["pts"] for p in phases]
    out = {"purge": int(bool(metas[0].get("purge")))}
    out["precondition_bytes"] = sum(p["write"]["bytes"] for p, m in zip(phases, metas) if m.get("precondition"))
    rounds = {}
    for p, m in zip(phases, metas):
        if m["round"] >= 1:
            rounds.setdefault(m["round"], []).append((m["bs"], m["read"], p))
    want = [(b, r) for r in MIX for b in BS]
    out["rounds"] = len(rounds)
    out["cells_ok"] = int(sorted(rounds) == list(range(1, len(rounds) + 1)) and all(
        [(b, r) for b, r, _ in cells] == want and all(
            p["mix"][0]["random_pct"] == 100 and p["mix"][0]["bs"] == [b] and p["mix"][0]["read_pct"] == r
            for b, r, p in cells)
        for cells in rounds.values()))
    track = [next(p["iops"] for b, r, p in rounds[n] if b == 4096 and r == 0) for n in sorted(rounds)]
    first = next((n for n in range(5, len(track) + 1) if steady(track[n - 5:n])), 0)
    out["steady_round"] = first
    last = len(track)
    out["stop_ok"] = int((first and last == first) or (not first and last == max_rounds))
    claim = doc.get("pts", [{}])[0]
    window = [first - 4, first] if first else [last - 4, last]
    out["claim_ok"] = int(claim.get("steady") == bool(first) and claim.get("rounds") == last
                          and claim.get("window") == window)
    out["area_ok"] = int(metas[0].get("plan", {}).get("area_bytes") == area)
    for k, v in out.items():
        print("%s=%s" % (k, v))


main()
