#!/usr/bin/env python3
"""doc_shown.py SHOWN OUTPUT: does OUTPUT (what an example of the docs
printed) have the shape of SHOWN (what its page shows it printing)?

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
1, saying which shown line was not found."""
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


shown, got = lines(sys.argv[1]), lines(sys.argv[2], busy=True)
at = 0
for want in shown:
    while at < len(got) and got[at] != want:
        at += 1
    if at == len(got):
        print("not printed (in this order): %s" % want)
        sys.exit(1)
    at += 1
