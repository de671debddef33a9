#!/usr/bin/env python3
"""Write every ```lua and ```sh block of the given Markdown files to OUTDIR
as NN-file-lang.(lua|sh), in order; print their names."""
import os
import re
import sys

out = sys.argv[1]
n = 0
for path in sys.argv[2:]:
    text = open(path).read()
    for m in re.finditer(r"^```(lua|sh)\n(.*?)^```", text, re.S | re.M):
        n += 1
        lang, body = m.group(1), m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        name = "%02d-%s-%d.%s" % (n, os.path.basename(path), line, lang)
        with open(os.path.join(out, name), "w") as f:
            f.write(body)
        print(name)
