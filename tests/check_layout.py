#!/usr/bin/env python3
"""check_layout.py ROOT - the source tree against doc/design.md, "The source
tree": one line per check, "ok" or "not ok" and what is wrong (05-layout.t
prints them as TAP)."""
import os
import re
import sys

ROOT = sys.argv[1]
SRC = os.path.join(ROOT, "src")
LUA_HEADERS = re.compile(r'#include\s*[<"](lua|lauxlib|lualib)\.h[>"]')
INCLUDE = re.compile(r'^#include "([a-z]+)/[a-z_0-9]+\.h"', re.M)
# A layer includes from the layers before it; these includes of a later
# layer are the ones doc/design.md names.
LAYERS = ["core", "io", "verify", "trace", "run", "cluster", "lua"]
EXCEPTIONS = {("io/target_fill.c", "cluster"), ("run/verify_lock.c", "cluster"),
              ("run/phase.c", "cluster"), ("run/phase_collect.c", "cluster"), ("run/phase_metrics.c", "cluster"),
              ("run/files.c", "cluster")}
MAX_LINES = 800


def report(ok, what, bad):
    print(("ok " if ok else "not ok ") + what)
    for b in bad[:20]:
        print("#   " + b)


def table():
    """{folder/file: row} from the design's source tree table."""
    text = open(os.path.join(ROOT, "doc", "design.md")).read()
    part = text.split("## The source tree", 1)[1].split("\n## ", 1)[0]
    named, folder = set(), None
    for line in part.splitlines():
        if not line.startswith("| ") or line.startswith("| folder"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        m = re.match(r"`([a-z]+)/`", cells[0])
        if m:
            folder = m.group(1)
        for name in re.findall(r"`([a-z_0-9]+\.[ch])`", cells[1]):
            named.add(folder + "/" + name)
    return named


def sources():
    found, top = [], []
    for entry in sorted(os.listdir(SRC)):
        p = os.path.join(SRC, entry)
        if os.path.isdir(p):
            found += [entry + "/" + f for f in sorted(os.listdir(p)) if f.endswith((".c", ".h"))]
        else:
            top.append(entry)
    return found, top


def main():
    named = table()
    found, top = sources()
    report(top == ["main.c"], "src/ holds only main.c at its top", [t for t in top if t != "main.c"])
    missing = [f for f in found if f not in named]
    report(not missing, "every C file is in doc/design.md's source tree (%d files)" % len(found),
           ["not in the table: " + f for f in missing])
    gone = sorted(named - set(found))
    report(not gone, "every file the table names exists", ["named but not there: " + f for f in gone])
    lua = [f for f in found + ["main.c"] if not f.startswith("lua/") and f != "main.c"
           and LUA_HEADERS.search(open(os.path.join(SRC, f)).read())]
    report(not lua, "no file outside src/lua/ and main.c includes a Lua header", lua)
    long = ["%s: %d lines" % (f, n) for f in found
            for n in [sum(1 for _ in open(os.path.join(SRC, f)))] if n > MAX_LINES]
    report(not long, "no C file over %d lines" % MAX_LINES, long)
    up = []
    for f in found:
        layer = f.split("/")[0]
        if layer not in LAYERS:
            up.append("%s: folder %s is not a layer of the design" % (f, layer))
            continue
        for inc in sorted(set(INCLUDE.findall(open(os.path.join(SRC, f)).read()))):
            if inc not in LAYERS:
                up.append("%s includes from %s/, not a layer" % (f, inc))
            elif LAYERS.index(inc) > LAYERS.index(layer) and (f, inc) not in EXCEPTIONS:
                up.append("%s includes from %s/, a later layer" % (f, inc))
    report(not up, "includes point down the layers (%s), but for the named exceptions"
           % " < ".join(LAYERS), up)


main()
