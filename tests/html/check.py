#!/usr/bin/env python3
"""tests/html/check.py PAGE.html DOM.html [SHOT.png]: what a report page
drew, as key=value lines for tests/76-html.t.

PAGE is the report as written (its data block says what there is to draw),
DOM the page after its script ran (chromium --dump-dom), or HARNESS::URL for
the page loaded at URL in tests/html/harness.html (its DOM is in the
harness's dump), SHOT a screenshot (- for none).
  charts, empty, errors, ms, load_ms  the status element's attributes
  svg                  <svg class="chart"> elements in the DOM
  drawn                charts with a path of at least one point (M x y)
  expect               charts the data asks for (the first 10 phases, or all
                       with 'all' as 4th argument: 3 over time when the phase
                       has intervals (2 when none has a latency; 1 more for
                       a replay's lag), 1 of
                       percentiles when it has any; plus
                       the overlay and one per sweep group)
  pts_charts, pts_drawn  the SNIA PTS pages' SVG charts (<svg class="pts-chart">,
                       written by Lua, not the script), and those with a
                       series of at least two points
  overlay_paths        paths in the first chart (the percentiles overlaid)
  phase_pct_paths      paths in the first phase's own percentile chart
  iops_paths           paths in the first "IOPS over time" chart
  iops_points, iops_top  points of its first path, and its highest (least y)
  ops_rows             the rows of the first table of syncs and trims, cells
                       joined by |, rows by ;
  lag_paths            drawn paths in the first "replay lag over time" chart
  replay_text          the first phase section's replay line
  nonwhite, colours    share of non-white pixels (per mille), distinct colours
  sweep_labels         the first "IOPS against latency" chart's point labels,
                       in the order drawn (comma-separated)
  sweep_in_order       1 when each label sits at its point of the mean line
                       and the line joins them in that order, else 0
  knee, knee_at        the knee's label, and the point label it circles
  knee_note            the note under the first sweep chart
"""
import html, json, re, struct, sys, zlib


def png_pixels(path):
    """The RGB(A) rows of an 8-bit, non-interlaced PNG (what chromium writes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "PNG kind %d/%d" % (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f in (1, 3, 4):
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                if f == 1: line[i] = (line[i] + a) & 255
                elif f == 3: line[i] = (line[i] + ((a + b) >> 1)) & 255
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return rows, w, bpp


def sweep(svgs, dom):
    """The first sweep chart: its point labels, their order along the mean
    line (the chart's second path), the knee and what it circles."""
    ch = [s for s in svgs if ">IOPS against latency: " in s]
    if not ch:
        print("sweep_labels=\nsweep_in_order=0\nknee=\nknee_at=\nknee_note=")
        return
    labels = re.findall(r'<text class="pt" x="([-0-9.]+)" y="([-0-9.]+)">([^<]*)</text>', ch[0])
    print("sweep_labels=%s" % ",".join(l[2] for l in labels))
    paths = re.findall(r'<path d="([^"]*)"', ch[0])
    line = [(float(x), float(y)) for x, y in re.findall(r"[ML]([-0-9.]+) ([-0-9.]+)", paths[1])] if len(paths) > 1 else []
    at = [(float(x) - 4, float(y) - 12) for x, y, _ in labels]
    print("sweep_in_order=%d" % (1 if len(line) == len(at) > 0 and all(
        abs(a[0] - b[0]) < 0.2 and abs(a[1] - b[1]) < 0.2 for a, b in zip(line, at)) else 0))
    k = re.search(r'<circle class="knee" cx="([-0-9.]+)" cy="([-0-9.]+)"', ch[0])
    kl = re.search(r'<text class="knee"[^>]*>([^<]*)</text>', ch[0])
    print("knee=%s" % (html.unescape(kl.group(1)) if kl else ""))
    near = [l[2] for l, a in zip(labels, at) if k and abs(a[0] - float(k.group(1))) < 0.2 and abs(a[1] - float(k.group(2))) < 0.2]
    print("knee_at=%s" % ",".join(near))
    note = re.search(r'<p class="note knee">([^<]*)</p>', dom)
    print("knee_note=%s" % (html.unescape(note.group(1)) if note else ""))


def main():
    page = open(sys.argv[1]).read()
    if "::" in sys.argv[2]:  # HARNESS::URL: that page's DOM in harness.html's dump
        path, url = sys.argv[2].split("::", 1)
        found = re.search(r'<pre class="page" data-page="%s">(.*?)</pre>' % re.escape(html.escape(url)),
                          open(path).read(), re.S)
        dom = html.unescape(found.group(1)) if found else ""
    else:
        dom = open(sys.argv[2]).read()
    everything = len(sys.argv) > 4 and sys.argv[4] == "all"
    st = re.search(r'<div id="status"([^>]*)>', dom)
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', st.group(1))) if st else {}
    for k in ("charts", "empty", "errors", "ms", "load-ms"):
        print("%s=%s" % (k.replace("-", "_"), attrs.get(k, "missing")))
    svgs = re.findall(r'<svg class="chart".*?</svg>', dom, re.S)
    print("svg=%d" % len(svgs))
    print("drawn=%d" % sum(1 for s in svgs if re.search(r'<path d="M[-0-9.]+ [-0-9.]+', s)))
    pts = re.findall(r'<svg class="pts-chart".*?</svg>', dom, re.S)
    print("pts_charts=%d" % len(pts))
    print("pts_drawn=%d" % sum(1 for s in pts if re.search(r'<path class="series" [^>]*d="M[-0-9.]+ [-0-9.]+ L', s)))
    print("overlay_paths=%d" % (len(re.findall(r"<path ", svgs[0])) if svgs else 0))
    own = [s for s in svgs if ">latency percentiles<" in s]
    print("phase_pct_paths=%d" % (len(re.findall(r"<path ", own[0])) if own else 0))
    iops = [s for s in svgs if ">IOPS over time<" in s]
    print("iops_paths=%d" % (len(re.findall(r"<path ", iops[0])) if iops else 0))
    first = re.search(r'<path d="([^"]*)"', iops[0]) if iops else None
    ys = [float(y) for y in re.findall(r"[ML][-0-9.]+ ([-0-9.]+)", first.group(1))] if first else [0]
    print("iops_points=%d" % len(ys))
    print("iops_top=%d" % min(ys))
    sweep(svgs, dom)
    lag = [s for s in svgs if ">replay lag over time<" in s]
    print("lag_paths=%d" % (len(re.findall(r'<path d="M', lag[0])) if lag else 0))
    rp = re.search(r'<p class="replay">(.*?)</p>', dom, re.S)
    print("replay_text=%s" % (html.unescape(rp.group(1)) if rp else ""))
    ops = re.search(r'<table class="ops">(.*?)</table>', dom, re.S)
    cells = [re.findall(r"<td>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", ops.group(1), re.S)] if ops else []
    print("ops_rows=%s" % ";".join("|".join(html.unescape(c) for c in r) for r in cells if r))
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1))
    ph = data["phases"] if everything else data["phases"][:10]
    def over_time(p):  # IOPS and MB/s; latency when an interval has some
        iv = p.get("iv")
        if not iv:
            return 0
        lat = [v for k in ("p50", "p99", "max") for v in iv[k] if v]
        lat += [v for s in p.get("streams") or [] if s.get("iv") for v in s["iv"]["p99"] if v]
        return (3 if lat else 2) + (1 if "lag99" in iv else 0)
    expect = sum(over_time(p) + (1 if p["pct"] else 0) for p in ph)
    expect += (1 if any(p["pct"] for p in data["phases"]) else 0) + len(data["groups"])
    print("expect=%d" % expect)
    if len(sys.argv) > 3 and sys.argv[3] != "-":
        rows, w, bpp = png_pixels(sys.argv[3])
        nonwhite, colours, total = 0, set(), 0
        for line in rows[::2]:
            for x in range(0, w * bpp, bpp * 2):
                px = bytes(line[x:x + 3])
                total += 1
                if px != b"\xff\xff\xff":
                    nonwhite += 1
                colours.add(px)
        print("nonwhite=%d" % (1000 * nonwhite // max(total, 1)))
        print("colours=%d" % len(colours))


if __name__ == "__main__":  # 76-html.t also imports png_pixels
    main()
