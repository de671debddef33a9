#!/usr/bin/env python3
"""trace_gen.py - write a block trace in one of the formats iomoon.trace.load
reads, from records it draws itself (seeded), and what loading it must give.

    trace_gen.py FORMAT OUT [--n N] [--seed S] [--expect FILE] [--swap]
                 [--unsorted] [--bad LINE] [--no-wait]
    trace_gen.py FORMAT OUT --pg [--seconds S] [--wal-iops N] [--wal-sync-every N]
                 [--data-iops N] [--data-read PCT] [--scan-iops N] [--summary FILE]

FORMAT: iolog2, iolog3, blktrace (one merged file, as blkparse -d writes),
blktrace-cpu (OUT is a directory of per-CPU files NAME.blktrace.CPU), msr,
alibaba, csv (columns named in a header: ts (us), kind, sector (512 bytes),
bytes, disk), own (what iomoon.trace.save writes as CSV).
--expect: the records a load must return, one a line,
"time_ns op offset len device", times from the first record, sorted by time
(stable). --swap: blktrace in the other byte order. --unsorted: swap some
neighbouring lines (CSV formats). --bad LINE: put a malformed line there
(a line number of the output, from 1). --no-wait: iolog2 without waits.
--batch: read one such command line (without the program) per line of
stdin, and write them all. Stdlib only; no trace is downloaded.

--pg: a PostgreSQL-like capture on one device instead of random records,
interleaved record by record: the WAL, --wal-iops sequential 8 KiB appends
a second at a fixed interval from --wal-at (1 GiB) wrapping in --wal-size
(64 MiB), a sync after every --wal-sync-every of them (at the same time,
right after its write); the data, --data-iops random 8 KiB I/Os a second
(Poisson arrivals, --data-read % reads) over the first 1 GiB; and with
--scan-iops, a sequential scan of 128 KiB reads from 256 MiB. No data
record starts where any of the 64 records before it ended, nor at the
WAL's or the scan's next offset, so the sequential records are exactly the
WAL's and the scan's (each run's first record excepted). --summary writes
the exact figures as JSON: records, reads, writes, syncs, wal_writes,
wal_syncs, wal_runs, wal_seq (WAL writes that continue a run), scan_reads,
scan_runs, scan_seq, data_reads, data_writes, wal_offset, wal_end,
span_ns.
"""
import json
import argparse
import os
import random
import struct
import sys

OPS_ALL = ["read", "write", "trim", "sync"]
DEVICES = {
    "iolog2": ["/tmp/dev-a", "/tmp/dev-b"], "iolog3": ["/tmp/dev-a", "/tmp/dev-b"],
    "blktrace": [(8, 0), (259, 3)], "blktrace-cpu": [(8, 0), (259, 3)],
    "msr": [("usr", 0), ("usr", 1)], "alibaba": ["12", "7"], "csv": ["sda", "sdb"], "own": ["/x/a", "/x/b"],
}
# the unit each format keeps times in, in ns
QUANTUM = {"iolog2": 1000000, "iolog3": 1000, "blktrace": 1, "blktrace-cpu": 1, "msr": 100, "alibaba": 1000,
           "csv": 1000, "own": 1}
OPS = {"msr": ["read", "write"], "alibaba": ["read", "write"]}


def dev_name(fmt, d):
    if fmt.startswith("blktrace"):
        return "%d,%d" % d
    if fmt == "msr":
        return "%s/%d" % d
    return d


def draw(fmt, n, seed):
    """n records: (t_ns, op, offset, len, device index), in time order."""
    rnd = random.Random(seed)
    q = QUANTUM[fmt]
    ops = OPS.get(fmt, OPS_ALL)
    t = 0
    recs = []
    for _ in range(n):
        t += rnd.choice([0, 1, 1, 2, 5, 40]) * q
        op = rnd.choice(ops)
        off, ln = rnd.randrange(0, 1 << 22) * 512, rnd.randrange(1, 257) * 512
        if op == "sync":
            off, ln = 0, 0
        recs.append((t, op, off, ln, rnd.randrange(len(DEVICES[fmt]))))
    return recs


KIB, MIB, GIB = 1024, 1024 * 1024, 1024 * 1024 * 1024


def draw_pg(fmt, a):
    """The --pg capture: records (t_ns, op, offset, len, 0) in time order,
    and its exact figures."""
    rnd = random.Random(a.seed)
    q = QUANTUM[fmt]
    span = int(a.seconds * 1e9)
    ev = []  # (t_ns, order, op, offset, len): order keeps a WAL write and its sync together, data first
    wal_gap = int(1e9 / a.wal_iops)
    pos, runs, k = 0, 1, 0
    for k in range(int(span // wal_gap)):
        t = k * wal_gap // q * q
        if pos + 8 * KIB > a.wal_size:
            pos, runs = 0, runs + 1
        ev.append((t, 1 + 2 * k, "write", a.wal_at + pos, 8 * KIB))
        pos += 8 * KIB
        if (k + 1) % a.wal_sync_every == 0:
            ev.append((t, 2 + 2 * k, "sync", 0, 0))
    wal_writes = sum(1 for e in ev if e[2] == "write")
    fig = {"wal_writes": wal_writes, "wal_syncs": len(ev) - wal_writes, "wal_runs": runs,
           "wal_seq": wal_writes - runs, "wal_offset": a.wal_at,
           "wal_end": a.wal_at + (a.wal_size if runs > 1 else wal_writes * 8 * KIB)}
    scan = []
    if a.scan_iops:
        gap = int(1e9 / a.scan_iops)
        for j in range(int(span // gap)):
            scan.append(((j * gap + gap // 2) // q * q, 0, "read", 256 * MIB + j * 128 * KIB, 128 * KIB))
    fig.update(scan_reads=len(scan), scan_runs=1 if scan else 0, scan_seq=max(0, len(scan) - 1))
    t, data = 0, []
    while True:
        t += rnd.expovariate(a.data_iops) * 1e9
        if t >= span:
            break
        op = "read" if rnd.random() * 100 < a.data_read else "write"
        data.append((int(t) // q * q, 0, op, 0, 8 * KIB))
    recs = sorted(ev + scan + data, key=lambda e: (e[0], e[1]))
    ends, wal_next, scan_next = [], a.wal_at, 256 * MIB
    for i, (t, order, op, off, ln) in enumerate(recs):
        if order == 0 and off == 0:  # a data record: random, never continuing anything
            while True:
                off = rnd.randrange(0, GIB // (8 * KIB)) * 8 * KIB
                if off not in ends and off != wal_next and off != scan_next:
                    break
            recs[i] = (t, order, op, off, ln)
        if op != "sync":
            ends = (ends + [off + ln])[-64:]
            if order > 0:
                wal_next = off + ln
            elif ln == 128 * KIB:
                scan_next = off + ln
    out = [(t, op, off, ln, 0) for t, _, op, off, ln in recs]
    if fmt in OPS:  # msr, alibaba: no syncs
        out = [r for r in out if r[1] in OPS[fmt]]
    fig.update(records=len(out), reads=sum(r[1] == "read" for r in out), writes=sum(r[1] == "write" for r in out),
               syncs=sum(r[1] == "sync" for r in out), data_reads=sum(r[1] == "read" for r in out) - len(scan),
               data_writes=sum(r[1] == "write" for r in out) - wal_writes, span_ns=out[-1][0] - out[0][0])
    return out, fig


def write_iolog(f, fmt, recs, devs, no_wait):
    f.write("fio version %s iolog\n" % fmt[-1])
    v3 = fmt == "iolog3"
    pre = "0 " if v3 else ""
    for d in devs:
        f.write("%s%s add\n%s%s open\n" % (pre, d, pre, d))
    now = 0
    for t, op, off, ln, d in recs:
        if v3:
            f.write("%d %s %s %d %d\n" % (t // 1000, devs[d], op, off, ln))
            continue
        if t > now and not no_wait:
            f.write("%s wait %d 0\n" % (devs[d], t // 1000000))
            f.write("%s wait %d 0\n" % (devs[d], max(0, t // 1000000 - 1)))  # earlier: no step back
            now = t
        if op == "sync" and d % 2:
            f.write("%s %s\n" % (devs[d], op))  # fio writes "sync 0 0"; a bare sync is read too
        else:
            f.write("%s %s %d %d\n" % (devs[d], op, off, ln))
    for d in devs:
        f.write("%s%s close\n" % ("%d " % (recs[-1][0] // 1000) if v3 else "", d))


TC = {"read": 1 << 0, "write": 1 << 1, "flush": 1 << 2, "sync": 1 << 3, "queue": 1 << 4, "complete": 1 << 7,
      "notify": 1 << 10, "discard": 1 << 13, "fua": 1 << 15}


def blk_event(endian, seq, t, sector, nbytes, act, cat, dev, cpu, pdu=b""):
    """One struct blk_io_trace (48 bytes) and its payload."""
    magic = 0x65617400 | 0x07
    action = act | (cat << 16)
    return struct.pack(endian + "IIQQIIIIIHH", magic, seq, t, sector, nbytes, action, 4242, dev, cpu, 0,
                       len(pdu)) + pdu


def blk_events(recs, devs, endian, base, cpus):
    """Events per CPU: each record as a queue event and a completion, and
    some notify messages and payloads that must be skipped."""
    out = [[] for _ in range(cpus)]
    for i, (t, op, off, ln, d) in enumerate(recs):
        cpu = i % cpus
        major, minor = devs[d]
        dev = (major << 20) | minor
        if op == "sync":
            cat, nbytes = TC["flush"] | TC["write"], 0
        elif op == "trim":
            cat, nbytes = TC["discard"] | TC["write"], ln
        else:
            cat, nbytes = TC[op] | (TC["sync"] if i % 3 == 0 else 0), ln
        pdu = b"\0" * 8 if i % 5 == 0 else b""
        ev = blk_event(endian, i, base + t, off // 512, nbytes, 1 | (1 << 8 if pdu else 0), cat | TC["queue"], dev,
                       cpu, pdu)
        out[cpu].append((base + t, ev))
        if i % 4 == 0:  # a notify message whose action's low bits equal a queue's
            out[cpu].append((base + t, blk_event(endian, i, base + t, 0, 0, 1, TC["notify"], dev, cpu, b"msg\0")))
        out[cpu].append((base + t + 50, blk_event(endian, i, base + t + 50, off // 512, nbytes, 8,
                                                  cat | TC["complete"], dev, cpu)))
    return out


def write_blktrace(out, fmt, recs, devs, swap):
    native = "<" if struct.pack("=I", 1) == struct.pack("<I", 1) else ">"
    endian = (">" if native == "<" else "<") if swap else native
    base = 1000000000
    if fmt == "blktrace":
        evs = blk_events(recs, devs, endian, base, 1)[0]
        evs.sort(key=lambda e: e[0])
        with open(out, "wb") as f:
            f.write(b"".join(e for _, e in evs))
        return
    os.makedirs(out, exist_ok=True)
    for cpu, evs in enumerate(blk_events(recs, devs, endian, base, 2)):
        evs.sort(key=lambda e: e[0])
        with open(os.path.join(out, "sdx.blktrace.%d" % cpu), "wb") as f:
            f.write(b"".join(e for _, e in evs))


def csv_lines(fmt, recs, devs):
    base = {"msr": 128166372003061629, "alibaba": 1577808000000000, "csv": 5000000}.get(fmt, 0)
    lines = []
    if fmt == "csv":
        lines.append("disk,kind,ts,sector,bytes")
    if fmt == "own":
        lines.append("time_ns,op,offset,len,device")
    for t, op, off, ln, d in recs:
        if fmt == "msr":
            host, disk = devs[d]
            lines.append("%d,%s,%d,%s,%d,%d,%d" % (base + t // 100, host, disk, op.capitalize(), off, ln, 4711))
        elif fmt == "alibaba":
            lines.append("%s,%s,%d,%d,%d" % (devs[d], op[0].upper(), off, ln, base + t // 1000))
        elif fmt == "csv":
            word = {"read": "R", "write": "Write", "trim": "discard", "sync": "Flush"}[op]
            lines.append("%s, %s ,%d,%d,%d" % (devs[d], word, base + t // 1000, off // 512, ln))
        else:
            lines.append("%d,%s,%d,%d,%s" % (t, op, off, ln, devs[d]))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("format", choices=sorted(DEVICES))
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--expect")
    ap.add_argument("--swap", action="store_true")
    ap.add_argument("--unsorted", action="store_true")
    ap.add_argument("--bad", type=int, default=0)
    ap.add_argument("--no-wait", action="store_true")
    ap.add_argument("--pg", action="store_true")
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--wal-iops", type=float, default=500)
    ap.add_argument("--wal-sync-every", type=int, default=1)
    ap.add_argument("--wal-at", type=int, default=GIB)
    ap.add_argument("--wal-size", type=int, default=64 * MIB)
    ap.add_argument("--data-iops", type=float, default=2000)
    ap.add_argument("--data-read", type=float, default=50)
    ap.add_argument("--scan-iops", type=float, default=0)
    ap.add_argument("--summary")
    a = ap.parse_args(argv)
    fmt, devs = a.format, DEVICES[a.format]
    if a.pg:
        devs = devs[:1]
        recs, fig = draw_pg(fmt, a)
        if a.summary:
            with open(a.summary, "w") as f:
                json.dump(fig, f, sort_keys=True)
    else:
        recs = draw(fmt, a.n, a.seed)
    if fmt.startswith("blktrace"):
        write_blktrace(a.out, fmt, recs, devs, a.swap)
    elif fmt.startswith("iolog"):
        with open(a.out, "w") as f:
            write_iolog(f, fmt, recs, devs, a.no_wait)
    else:
        lines = csv_lines(fmt, recs, devs)
        if a.unsorted:
            h = 1 if fmt in ("csv", "own") else 0
            for i in range(3, len(recs) - 1, 7):
                lines[h + i], lines[h + i + 1] = lines[h + i + 1], lines[h + i]
                recs[i], recs[i + 1] = recs[i + 1], recs[i]
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    if a.bad:
        with open(a.out) as f:
            lines = f.read().split("\n")
        lines.insert(a.bad - 1, {"iolog3": "12 /tmp/dev-a read 4096", "iolog2": "/tmp/dev-a write x 4096"}
                     .get(fmt, "1,2,nonsense"))
        with open(a.out, "w") as f:
            f.write("\n".join(lines))
    if a.expect:
        if fmt == "iolog2" and a.no_wait:
            recs = [(0,) + r[1:] for r in recs]
        if fmt == "blktrace-cpu":  # the per-CPU files one after the other, then by time
            recs = [r for _, r in sorted(enumerate(recs), key=lambda e: e[0] % 2)]
        recs.sort(key=lambda r: r[0])  # stable: equal times keep file order
        t0 = recs[0][0]
        with open(a.expect, "w") as f:
            for t, op, off, ln, d in recs:
                f.write("%d %s %d %d %s\n" % (t - t0, op, off, ln, dev_name(fmt, devs[d])))


if len(sys.argv) > 1 and sys.argv[1] == "--batch":
    for line in sys.stdin:  # one trace per line, its arguments as above (python starts once)
        if line.split():
            main(line.split())
else:
    main()
