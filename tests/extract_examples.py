#!/usr/bin/env python3
"""Write every ```lua and ```sh block of the given Markdown files to OUTDIR
as NN-file-line.(lua|sh), in order; print their names.

What a doc shows an example printing is written beside it as
NN-file-line.shown (tests/doc_shown.py compares its shape with what the
example printed):
- an ```output block right after the example (nothing but blank lines
  between);
- in a Lua example, the text after `-->` at the end of a line;
- an ```output block right after a comment `<!-- output of: COMMAND -->`:
  the output of COMMAND, which is written as an example of its own (.sh),
  for output shown of a command too slow to run as it is written (`make
  run`, say); the block is its whole output (an empty NAME.whole beside
  NAME.shown says so: doc_shown.py --whole).
An ```output block anywhere else is an error: it would be checked against
nothing."""
import os
import re
import sys

FENCE = re.compile(r"^```(\w*)\n(.*?)^```[ \t]*$", re.S | re.M)
MARK = re.compile(r"^<!-- output of: (.*?) -->[ \t]*$", re.M)


def items(text):
    """The fenced blocks and output markers of a page, in order: (start,
    end, kind, body); kind is the block's language, or "mark"."""
    found = [(m.start(), m.end(), m.group(1), m.group(2)) for m in FENCE.finditer(text)]
    found += [(m.start(), m.end(), "mark", m.group(1) + "\n") for m in MARK.finditer(text)]
    return sorted(found)


def shown_after(text, found, i):
    """The body of the ```output block right after item i, or None."""
    if i + 1 < len(found):
        start, _, kind, body = found[i + 1]
        if kind == "output" and text[found[i][1]:start].strip() == "":
            return body
    return None


out = sys.argv[1]
n = 0
for path in sys.argv[2:]:
    text = open(path).read()
    found = items(text)
    for i, (start, _, kind, body) in enumerate(found):
        line = text.count("\n", 0, start) + 1
        if kind == "output" and (i == 0 or shown_after(text, found, i - 1) is None
                                 or found[i - 1][2] not in ("lua", "sh", "mark")):
            sys.exit("%s:%d: an ```output block not right after an example or an output-of comment" % (path, line))
        if kind not in ("lua", "sh", "mark"):
            continue
        shown = shown_after(text, found, i)
        if kind == "mark" and shown is None:
            sys.exit("%s:%d: an output-of comment not followed by an ```output block" % (path, line))
        if kind == "lua":
            arrows = [m.group(1) for m in re.finditer(r"--> (.*)$", body, re.M)]
            if arrows:
                shown = (shown or "") + "\n".join(arrows) + "\n"
        n += 1
        name = "%02d-%s-%d.%s" % (n, os.path.basename(path), line, "sh" if kind == "mark" else kind)
        with open(os.path.join(out, name), "w") as f:
            f.write(body)
        if shown is not None:
            with open(os.path.join(out, name.rsplit(".", 1)[0] + ".shown"), "w") as f:
                f.write(shown)
        if kind == "mark":  # the block is the command's whole output (doc_shown.py --whole)
            open(os.path.join(out, name.rsplit(".", 1)[0] + ".whole"), "w").close()
        print(name)
