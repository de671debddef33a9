# A co-tenant's race (issue 49): for SECS seconds, make the tree's name
# DIR/f3 by turns a hard link to PRECIOUS (outside the tree, another
# owner's) and a file of its own, each swap one rename, so a check of the
# name and the open after it can see two different files.
import os, sys, time

d, precious, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
f, a, b = (os.path.join(d, n) for n in ("f3", ".race-a", ".race-b"))
end = time.time() + secs
while time.time() < end:
    os.link(precious, a)
    os.rename(a, f)
    os.close(os.open(b, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
    os.rename(b, f)
