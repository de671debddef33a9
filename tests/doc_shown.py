#!/usr/bin/env python3
"""doc_shown.py [--whole] [--sim] SHOWN OUTPUT: does OUTPUT (what an
example of the docs printed) have the shape of SHOWN (what its page shows
it printing)?

The shape of a line: its measurements made N (a number standing alone, or
after `=`, with its unit if any: `0.052`, `18%`, `time=261.3 us`,
`3.33 k iops`; digits inside a word stay, as in `4K;` or
`8k_55%Read_80%Random`), the file system and device ping names
(`(ext4 /dev/vda 252.0 GiB)`) made `(FS DEV N)`, and in ping's JSON the
strings of "localtime", "fstype" and "device" made S, runs of blanks made one.
A busy machine's mark on a row of OUTPUT ("host busy: ... run again on a
quiet host", result.bottleneck "host") is left out: it says what the
machine was doing when the example ran, as a measurement does.
Every line SHOWN holds must have a line of that shape in OUTPUT, in the same
order (a page may show part of what an example prints). Exit 0 if so; else
1, saying which shown line was not found.

--whole (a block labelled `<!-- output of: COMMAND -->`): the block is the
command's whole output, line for line: the same number of lines, each of
the same shape (names, columns and rows exact; the measurements aside).
--sim (COMMAND runs on engine sim, whose every I/O takes sim_latency,
100 us): the figures shown are ones the sim can print: in a table under
`Latency ms` and `p99 ms`, none below 0.100 ms (a disk's figures are)."""
import re
import sys

NUMBER = re.compile(r"(?<![^\s=(\[])-?[0-9]+(\.[0-9]+)?(?=$|[\s%,;:)\]/])")
UNIT = re.compile(r"\bN (ns|us|ms|s|min|hour|B|KiB|MiB|GiB|TiB|PiB|k|M|G|T)\b")
DEVICE = re.compile(r"\(\S+ \S+ N\)")
JSON_MEASURED = re.compile(r'"(localtime|fstype|device)": "[^"]*"')


def shape(line):
    line = NUMBER.sub("N", line)
    line = UNIT.sub("N", line)
    line = DEVICE.sub("(FS DEV N)", line)
    line = JSON_MEASURED.sub(r'"\1": S', line)
    return " ".join(line.split())


BUSY = re.compile(r"(;\s*|\s+)host busy: other processes held [^;|]*?: run again on a quiet host")


def lines(path, busy=False):
    text = open(path, errors="replace").read()
    return [shape(BUSY.sub("", x) if busy else x) for x in text.split("\n") if x.strip()]


args = sys.argv[1:]
whole, sim = "--whole" in args, "--sim" in args
args = [a for a in args if a not in ("--whole", "--sim")]
shown, got = lines(args[0]), lines(args[1], busy=True)
if sim:
    raw = [x for x in open(args[0]).read().split("\n") if x.strip()]
    for i, head in enumerate(raw):
        if "Latency ms" not in head:
            continue
        # the columns are right-aligned: a row's figure ends where its header does
        ends = [head.index(c) + len(c) for c in ("Latency ms", "p99 ms") if c in head]
        for row in raw[i + 1:]:
            for e in ends:
                m = re.search(r"(\S+)$", row[:e])
                if not m or not re.match(r"^[0-9.]+$", m.group(1)):
                    continue
                if float(m.group(1)) < 0.1:
                    print("not a sim figure: %s ms (the sim's I/O takes 0.100 ms): %s" % (m.group(1), row))
                    sys.exit(1)
if whole and len(shown) != len(got):
    print("the block shows %d lines, the command prints %d: show its whole output" % (len(shown), len(got)))
    sys.exit(1)
if whole:
    for want, have in zip(shown, got):
        if want != have:
            print("shown: %s; printed: %s" % (want, have))
            sys.exit(1)
at = 0
for want in shown:
    while at < len(got) and got[at] != want:
        at += 1
    if at == len(got):
        print("not printed (in this order): %s" % want)
        sys.exit(1)
    at += 1
