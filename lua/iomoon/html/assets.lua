--- iomoon.html.assets: the script and styles of the HTML report (lua/iomoon/html.lua
-- puts them inline). Our own SVG charts: no library, no network. The page
-- writes what it drew into <div id="status">: data-charts (SVG charts
-- drawn), data-empty (charts without a data point), data-errors (script
-- errors, their messages in the element's text), data-ms (the script's
-- time to render) and data-load-ms (from navigation to the load event).
local M = {}

M.css = [==[
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin:1.2em 0 .4em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.4em 0}td,th{padding:2px 8px;border-bottom:1px solid #e4e4e4;text-align:right}
th{background:#f2f2f2}td.n,th.n{text-align:left}td.st{text-align:left}
tr.bad td{background:#fde2e2}tr.intr td{background:#fff3cd}tr.rate td{background:#e8f0ff}tr.stream td{color:#555;font-size:.93em}
tr.op td{color:#555;font-size:.93em}tr.op td.n{padding-left:1.8em}table.ops td:first-child,table.ops th:first-child{text-align:left}
table.kv td{text-align:left;vertical-align:top}table.kv td:first-child{color:#555;white-space:nowrap}
.wrap{max-height:32em;overflow:auto;display:inline-block;border:1px solid #ddd}
svg.chart{width:100%;max-width:760px;height:auto;display:block;margin:.3em 0;background:#fff}
svg text{font:11px system-ui,sans-serif;fill:#333}svg text.pt{font-size:9px;fill:#1f77b4}.grid{stroke:#e6e6e6}.axis{stroke:#888}
details{margin:.3em 0;border:1px solid #ddd;padding:.2em .6em}summary{cursor:pointer}
.mark{color:#b00000;font-weight:600}.note{color:#666}.charts{display:flex;flex-wrap:wrap;gap:0 1em}
.charts>div{flex:1 1 380px;max-width:760px}button{margin:.3em 0}
]==]

M.js = [==[
(function () {
"use strict";
var T0 = performance.now(), errs = [];
var st = document.getElementById("status");
function status() {
  var charts = document.querySelectorAll("svg.chart"), empty = 0;
  for (var i = 0; i < charts.length; i++) if (+charts[i].getAttribute("data-points") === 0) empty++;
  st.setAttribute("data-charts", charts.length);
  st.setAttribute("data-empty", empty);
  st.setAttribute("data-errors", errs.length);
  st.textContent = errs.join("\n");
}
window.onerror = function (m) { errs.push(String(m)); status(); };
// data-load-ms: from the start of navigation to the load event (parsing included)
window.addEventListener("load", function () { st.setAttribute("data-load-ms", performance.now().toFixed(1)); });
var D = JSON.parse(document.getElementById("data").textContent);
var SVGNS = "http://www.w3.org/2000/svg";
var PAL = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
function color(i) { return i < PAL.length ? PAL[i] : "hsl(" + ((i * 47) % 360) + ",60%,45%)"; }
function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; });
}
function el(tag, attrs, parent) {
  var e = document.createElementNS(SVGNS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function fmt(v) {
  if (v === 0) return "0";
  var a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toPrecision(3) + "G";
  if (a >= 1e6) return (v / 1e6).toPrecision(3) + "M";
  if (a >= 1e4) return (v / 1e3).toPrecision(3) + "k";
  if (a >= 1) return String(+v.toPrecision(4));
  return String(+v.toPrecision(3));
}
// ticks of a linear axis over [lo, hi]: about n round values
function linTicks(lo, hi, n) {
  var span = hi - lo || Math.abs(hi) || 1, step = Math.pow(10, Math.floor(Math.log10(span / n)));
  var m = span / n / step;
  step *= m >= 5 ? 5 : m >= 2 ? 2 : 1;
  var t = [];
  for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push(+v.toPrecision(12));
  return t;
}
// a long series thinned to about 2 x MAXPTS points: per bucket of points,
// its lowest and its highest in their order (spikes stay visible)
var MAXPTS = 1000;
function thin(pts) {
  if (pts.length <= 2 * MAXPTS) return pts;
  var out = [], k = Math.ceil(pts.length / MAXPTS);
  for (var i = 0; i < pts.length; i += k) {
    var lo = pts[i], hi = pts[i];
    for (var j = i + 1; j < Math.min(i + k, pts.length); j++) {
      if (pts[j][1] < lo[1]) lo = pts[j];
      if (pts[j][1] > hi[1]) hi = pts[j];
    }
    if (lo === hi) out.push(lo); else if (lo[0] < hi[0]) out.push(lo, hi); else out.push(hi, lo);
  }
  return out;
}
// a chart: o = {title, xlabel, ylabel, ylog, xlog, xticks: [[value, label]], series: [{name, pts: [[x, y]], dash, dots}], knee: {x, y, label}}
function chart(parent, o) {
  var W = 640, H = 300, L = 62, R = 34, T = 26, B = 44;
  var legend = o.series.length > 1 ? Math.min(o.series.length, 12) : 0;
  var lh = legend ? Math.ceil(legend / 3) * 14 + 6 : 0;
  var svg = el("svg", { "class": "chart", viewBox: "0 0 " + W + " " + (H + lh), role: "img" });
  var xs = [], ys = [], n = 0;
  o.series.forEach(function (s) {
    s.pts = s.pts.filter(function (p) {
      return p[0] != null && p[1] != null && isFinite(p[0]) && isFinite(p[1]) && (!o.ylog || p[1] > 0) && (!o.xlog || p[0] > 0);
    });
    s.pts = thin(s.pts);
    s.pts.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); });
    n += s.pts.length;
  });
  svg.setAttribute("data-points", n);
  el("text", { x: L, y: 16, "font-weight": "600" }, svg).textContent = o.title;
  parent.appendChild(svg);
  if (!n) { el("text", { x: L + 10, y: T + 40 }, svg).textContent = "no data"; return svg; }
  function tr(v, log) { return log ? Math.log10(v) : v; }
  var x0 = Math.min.apply(null, xs.map(function (v) { return tr(v, o.xlog); })), x1 = Math.max.apply(null, xs.map(function (v) { return tr(v, o.xlog); }));
  var y0 = Math.min.apply(null, ys.map(function (v) { return tr(v, o.ylog); })), y1 = Math.max.apply(null, ys.map(function (v) { return tr(v, o.ylog); }));
  if (o.xmin != null) x0 = Math.min(x0, o.xmin);
  if (o.xmax != null) x1 = Math.max(x1, o.xmax);
  if (!o.ylog) { y0 = Math.min(0, y0); y1 = y1 > 0 ? y1 * 1.05 : 1; }
  else { y0 = Math.floor(y0); y1 = Math.ceil(y1 + 1e-9); }
  if (x1 === x0) { x0 -= 0.5; x1 += 0.5; }
  if (y1 === y0) { y1 = y0 + 1; }
  function X(v) { return L + (tr(v, o.xlog) - x0) / (x1 - x0) * (W - L - R); }
  function Xt(t) { return L + (t - x0) / (x1 - x0) * (W - L - R); }
  function Y(v) { return T + (1 - (tr(v, o.ylog) - y0) / (y1 - y0)) * (H - T - B); }
  function Yt(t) { return T + (1 - (t - y0) / (y1 - y0)) * (H - T - B); }
  var yt = o.ylog ? [] : linTicks(y0, y1, 5);
  if (o.ylog) for (var d = y0; d <= y1; d++) yt.push(d);
  yt.forEach(function (t) {
    var y = Yt(t);
    el("line", { "class": "grid", x1: L, x2: W - R, y1: y, y2: y }, svg);
    el("text", { x: L - 4, y: y + 4, "text-anchor": "end" }, svg).textContent = fmt(o.ylog ? Math.pow(10, t) : t);
  });
  var xt = o.xticks ? o.xticks.filter(function (t) { return t[0] >= x0 - 1e-9 && t[0] <= x1 + 1e-9; }) :
    (o.xlog ? [] : linTicks(x0, x1, 6).map(function (t) { return [t, fmt(t)]; }));
  if (!o.xticks && o.xlog) for (var e = Math.ceil(x0); e <= x1; e++) xt.push([e, fmt(Math.pow(10, e))]);
  xt.forEach(function (t) {
    var x = Xt(t[0]);
    el("line", { "class": "grid", x1: x, x2: x, y1: T, y2: H - B }, svg);
    el("text", { x: x, y: H - B + 14, "text-anchor": "middle" }, svg).textContent = t[1];
  });
  el("line", { "class": "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }, svg);
  el("line", { "class": "axis", x1: L, x2: L, y1: T, y2: H - B }, svg);
  el("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle" }, svg).textContent = o.xlabel;
  el("text", { x: 12, y: (T + H - B) / 2, "text-anchor": "middle", transform: "rotate(-90 12 " + (T + H - B) / 2 + ")" }, svg).textContent = o.ylabel;
  o.series.forEach(function (s, i) {
    var c = s.color || color(i);
    if (!s.pts.length) return;
    var d = s.pts.map(function (p, j) { return (j ? "L" : "M") + X(p[0]).toFixed(1) + " " + Y(p[1]).toFixed(1); }).join("");
    var path = el("path", { d: d, fill: "none", stroke: c, "stroke-width": s.width || 1.6 }, svg);
    if (s.dash) path.setAttribute("stroke-dasharray", s.dash);
    el("title", {}, path).textContent = s.name;
    if (s.dots || s.pts.length === 1) s.pts.forEach(function (p) {
      var ci = el("circle", { cx: X(p[0]).toFixed(1), cy: Y(p[1]).toFixed(1), r: 2.8, fill: c }, svg);
      if (p[2]) el("title", {}, ci).textContent = p[2];
      if (p[3]) el("text", { "class": "pt", x: (X(p[0]) + 4).toFixed(1), y: (Y(p[1]) + 12).toFixed(1) }, svg).textContent = p[3];
    });
  });
  if (o.knee) {
    var kx = X(o.knee.x), ky = Y(o.knee.y);
    el("circle", { "class": "knee", cx: kx, cy: ky, r: 7, fill: "none", stroke: "#000", "stroke-width": 2 }, svg);
    el("text", { "class": "knee", x: kx > W / 2 ? kx - 9 : kx + 9, y: ky - 10, "text-anchor": kx > W / 2 ? "end" : "start" }, svg).textContent = o.knee.label;
  }
  for (var li = 0; li < legend; li++) {
    var s = o.series[li], lx = L + (li % 3) * 190, ly = H + Math.floor(li / 3) * 14 + 4;
    el("rect", { x: lx, y: ly, width: 12, height: 4, fill: s.color || color(li) }, svg);
    el("text", { x: lx + 16, y: ly + 6 }, svg).textContent = (li === 11 && o.series.length > 12) ?
      "... and " + (o.series.length - 11) + " more" : String(s.name).slice(0, 30);
  }
  return svg;
}
function ms(ns) { return ns == null ? null : ns / 1e6; }
// x of a percentile on the nines axis: log10(1 / (1 - p))
function nines(p) { return p >= 100 ? null : Math.log10(100 / (100 - p)); }
var NINES = [[0, "0%"], [1, "90%"], [2, "99%"], [3, "99.9%"], [4, "99.99%"], [5, "99.999%"], [6, "99.9999%"], [7, "99.99999%"]];
function pctSeries(p, i) {
  return { name: p.name, color: color(i), dots: true, pts: p.pct.map(function (q) {
    return [nines(q[0]), ms(q[1]), p.name + ": p" + q[0] + " " + fmt(ms(q[1])) + " ms"];
  }) };
}
function pctChart(parent, list, title) {
  return chart(parent, { title: title, xlabel: "percentile (nines)", ylabel: "latency ms", ylog: true, xticks: NINES, xmin: 0, xmax: 4,
    series: list.map(function (p) { return pctSeries(p, p.i); }) });
}
// over time: each interval at its end
function ivPts(iv, key, scale) {
  if (!iv || !iv.t) return [];
  return iv.t.map(function (t, j) { var v = iv[key][j]; return [t + iv.len[j], v == null ? null : v * (scale || 1)]; });
}
function timeCharts(box, p) {
  var sub = p.streams || [];
  var thr = function (key, label) {
    var series = [{ name: sub.length ? "all" : label, pts: ivPts(p.iv, key), width: 2, color: "#222" }];
    sub.forEach(function (s, i) { series.push({ name: s.name, pts: ivPts(s.iv, key), color: color(i) }); });
    return series;
  };
  var d = document.createElement("div"); d.className = "charts"; box.appendChild(d);
  function cell() { var c = document.createElement("div"); d.appendChild(c); return c; }
  chart(cell(), { title: "IOPS over time", xlabel: "seconds", ylabel: "IOPS", series: thr("iops", "IOPS") });
  chart(cell(), { title: "MB/s over time", xlabel: "seconds", ylabel: "MB/s", series: thr("mb", "MB/s") });
  var lat = [{ name: "p50", pts: ivPts(p.iv, "p50", 1e-6), color: color(0) },
    { name: "p99", pts: ivPts(p.iv, "p99", 1e-6), color: color(1) },
    { name: "max", pts: ivPts(p.iv, "max", 1e-6), color: color(2) }];
  sub.forEach(function (s, i) { lat.push({ name: s.name + " p99", pts: ivPts(s.iv, "p99", 1e-6), color: color(i + 3), dash: "4 3" }); });
  var some = lat.some(function (l) { return l.pts.some(function (q) { return q[1] > 0; }); });
  if (some) chart(cell(), { title: "latency over time", xlabel: "seconds", ylabel: "latency ms", ylog: true, series: lat });
  else cell().innerHTML = "<p class=note>no I/O completed: no latency over time</p>";
  if (p.iv.lag99) lagChart(cell(), p);
}
// a replay's lag over time: per interval, how late its records were submitted
function lagChart(c, p) {
  var series = [{ name: "lag p99", pts: ivPts(p.iv, "lag99", 1e-6), color: color(1) },
    { name: "lag max", pts: ivPts(p.iv, "lagmax", 1e-6), color: color(2), dash: "4 3" }];
  (p.streams || []).forEach(function (s, i) {
    if (s.iv && s.iv.lag99) series.push({ name: s.name + " lag p99", pts: ivPts(s.iv, "lag99", 1e-6), color: color(i + 3) });
  });
  chart(c, { title: "replay lag over time", xlabel: "seconds", ylabel: "lag ms", series: series }).setAttribute("data-kind", "lag");
}
// a nested table of plain values as rows of a key/value table
function kv(obj, prefix, rows) {
  Object.keys(obj).sort().forEach(function (k) {
    var v = obj[k], key = prefix ? prefix + "." + k : k;
    if (v !== null && typeof v === "object" && !(Array.isArray(v) && v.every(function (x) { return typeof x !== "object"; }))) kv(v, key, rows);
    else rows.push("<tr><td>" + esc(key) + "</td><td>" + esc(Array.isArray(v) ? v.join(", ") : v) + "</td></tr>");
  });
  return rows;
}
function kvTable(obj) { return "<table class=kv>" + kv(obj || {}, "", []).join("") + "</table>"; }
// a phase's syncs and trims (its streams' and its own): count and latency
function opsTable(ops) {
  if (!ops || !ops.length) return "";
  var ms3 = function (ns) { return ns == null ? "-" : (ns / 1e6).toFixed(3); };
  return "<table class=ops><tr><th>syncs and trims</th><th>count</th><th>mean ms</th><th>p99 ms</th><th>max ms</th><th>errors</th></tr>" +
    ops.map(function (o) {
      return "<tr><td>" + esc((o.of ? o.of + ": " : "") + o.what) + "</td><td>" + esc(o.n) + "</td><td>" + ms3(o.mean) +
        "</td><td>" + ms3(o.p99) + "</td><td>" + ms3(o.max) + "</td><td>" + esc(o.errors) + "</td></tr>";
    }).join("") + "</table>";
}
function phaseBody(det, p) {
  var box = det.querySelector(".body");
  var h = "";
  if (p.marks.length) h += "<p class=mark>" + esc(p.marks.join("; ")) + "</p>";
  h += "<p>" + esc(fmt(p.iops)) + " IOPS, " + esc(fmt(p.mbps)) + " MB/s, p50 " + esc(fmt(ms(p.p50))) + " ms, p99 " +
    esc(fmt(ms(p.p99))) + " ms over " + esc(fmt(p.seconds)) + " s</p>";
  h += opsTable(p.ops);
  if (p.replay) h += "<p class=replay>" + esc(p.replay) + "</p>";
  h += "<details><summary>workload definition" + (p.defsrc ? "" : " (fields of the result)") + "</summary>" + kvTable(p.def) + "</details>";
  box.innerHTML = h;
  if (p.iv && p.iv.t && p.iv.t.length) timeCharts(box, p);
  else box.insertAdjacentHTML("beforeend", "<p class=note>no intervals recorded: no chart over time</p>");
  // the phase's percentiles, and each stream's beside them
  var own = [p].concat((p.streams || []).filter(function (s) { return s.pct && s.pct.length; }).map(function (s, j) {
    return { name: s.name, pct: s.pct, i: j + 1 };
  }));
  if (p.pct.length) pctChart(box, own.map(function (q, j) { return { name: q.name, pct: q.pct, i: j }; }), "latency percentiles");
}
function drawPhase(det) {
  if (det.getAttribute("data-drawn")) return;
  det.setAttribute("data-drawn", "1");
  phaseBody(det, D.phases[+det.getAttribute("data-i")]);
  status();
}
// the phases' sections: the first EAGER drawn now, the others when opened
var EAGER = 10;
function phases() {
  var box = document.getElementById("phases"), h = [];
  D.phases.forEach(function (p, i) {
    h.push("<details id=\"phase-" + (i + 1) + "\" data-i=\"" + i + "\"" + (i < EAGER ? " open" : "") + "><summary><b>" + esc(p.name) +
      "</b>" + (p.marks.length ? " <span class=mark>" + esc(p.marks.join("; ")) + "</span>" : "") + "</summary><div class=body></div></details>");
  });
  box.innerHTML = h.join("");
  var dets = box.querySelectorAll("details[data-i]");
  for (var i = 0; i < dets.length; i++) {
    if (i < EAGER) drawPhase(dets[i]);
    dets[i].addEventListener("toggle", function (ev) { if (ev.target.open) drawPhase(ev.target); });
  }
}
// the percentile distributions overlaid: the first OVERLAY phases, all on demand
var OVERLAY = 20;
function overlay() {
  var box = document.getElementById("dist"), withPct = D.phases.filter(function (p) { return p.pct.length; });
  if (!withPct.length) { box.innerHTML = "<p class=note>no latency percentiles</p>"; return; }
  var svg = pctChart(box, withPct.slice(0, OVERLAY), "latency percentiles, phases overlaid" +
    (withPct.length > OVERLAY ? " (first " + OVERLAY + " of " + withPct.length + ")" : ""));
  if (withPct.length > OVERLAY) {
    var b = document.createElement("button");
    b.textContent = "show all " + withPct.length + " phases";
    b.onclick = function () { box.removeChild(svg); box.removeChild(b); pctChart(box, withPct, "latency percentiles, all phases overlaid"); status(); };
    box.appendChild(b);
  }
}
// IOPS against latency for each group of phases that differ only in load:
// the points joined in load order, each mean point labelled with its load
function curves() {
  var box = document.getElementById("curves");
  if (!D.groups.length) { box.innerHTML = "<p class=note>no sweep: no phases that differ only in queue depth, workers or rate</p>"; return; }
  D.groups.forEach(function (g) {
    var pts = g.members.map(function (i, j) { var p = D.phases[i]; return { p: p, x: p.iops, l: g.labels[j] }; });
    var series = [
      { name: "p99", dots: true, color: color(1), pts: pts.map(function (q) { return [q.x, ms(q.p.p99), q.p.name + ": " + fmt(q.x) + " IOPS, p99 " + fmt(ms(q.p.p99)) + " ms"]; }) },
      { name: "mean", dots: true, color: color(0), pts: pts.map(function (q) { return [q.x, ms(q.p.mean), q.p.name + ": " + fmt(q.x) + " IOPS, mean " + fmt(ms(q.p.mean)) + " ms", q.l]; }) }];
    var kj = g.knee == null ? -1 : g.members.indexOf(g.knee), k = kj >= 0 ? pts[kj] : null;
    chart(box, { title: "IOPS against latency: " + g.title + " (" + g.members.length + " phases)", xlabel: "IOPS", ylabel: "latency ms", ylog: true,
      series: series, knee: k && { x: k.x, y: ms(k.p.mean), label: "knee: " + k.l } });
    box.insertAdjacentHTML("beforeend", "<p class=\"note knee\">" + esc(g.note) + " (doc/reports.md)</p>");
  });
}
function run(f) { try { f(); } catch (e) { errs.push(String(e && e.stack || e)); } }
run(overlay);
run(curves);
run(phases);
// #all-phases opens (and so draws) every phase; #all-overlay overlays every phase
run(function () {
  var h = location.hash;
  if (h.indexOf("all-overlay") >= 0) { var b = document.querySelector("#dist button"); if (b) b.click(); }
  if (h.indexOf("all-phases") >= 0) {
    var dets = document.querySelectorAll("details[data-i]");
    for (var i = 0; i < dets.length; i++) dets[i].open = true;
  }
});
st.setAttribute("data-ms", (performance.now() - T0).toFixed(1));
status();
})();
]==]

return M
