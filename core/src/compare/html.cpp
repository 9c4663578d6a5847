// Self-contained interactive HTML report: embedded JSON of resampled medians/bands (never raw
// checkpoints, to stay small), plotted by uPlot (npm package `uplot`, installed by
// scripts/setup.sh and inlined at report time), and static tables for every y. No external
// script, style or font: the file works offline.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "compare/model.hpp"

using nlohmann::json;

namespace dualgap::compare {

namespace {


std::string esc(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

// JSON to embed in a <script> element. The HTML parser ends the element at "</script" and, after
// "<!--" and "<script", no longer at "</script" (a solver named "<!--<script>" would swallow the
// rest of the page): every '<', '>' and '&' is written as \u003c, \u003e, \u0026, which in JSON
// can occur only inside strings, where the escape is the same text. U+2028 and U+2029 are line
// terminators to older JavaScript parsers: \u2028, \u2029. The one writer of inline JSON.
std::string script_json(const json& value) {
  const std::string raw = json_text(value);
  std::string out;
  out.reserve(raw.size() + raw.size() / 16);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else if (c == '\xE2' && i + 2 < raw.size() && raw[i + 1] == '\x80' && (raw[i + 2] == '\xA8' || raw[i + 2] == '\xA9')) {
      out += raw[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// 4 significant digits are plenty for a plot and keep the file small.
json rounded(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) {
    if (!std::isfinite(x)) a.push_back(nullptr);
    else a.push_back(std::stod(fmt::format("{:.4g}", x)));
  }
  return a;
}

std::string cell(const json& c) { return esc(format_cell(c)); }

std::string tables_html(const json& t) {
  std::string h;
  const double k = t.value("oracle_cost", 1.0);
  for (std::size_t pi = 0; pi < t["problems"].size(); ++pi) {
    const json& p = t["problems"][pi];
    h += fmt::format("<div class=\"tables\" data-problem=\"{}\" data-y=\"{}\">", pi, esc(t["y"].get<std::string>()));
    h += "<p>" + bounds_sentence(p, true);
    if (!p["has_dual"].get<bool>())
      h += " No certified dual: suboptimality is the <b>relative objective</b> (F - F<sub>best</sub>)/F<sub>best</sub>.";
    if (p["approximate"].get<bool>())
      h += " <span class=\"warn\">Approximate primal/dual (approximate oracle, e.g. Potts alpha-expansion): bounds "
           "are not certified and gaps can be negative.</span>";
    if (k != 1.0)
      h += fmt::format(" Times replayed as if each exact oracle call cost <b>{:g}x</b> its recorded time.", k);
    if (!p.value("note", std::string()).empty()) h += "<p class=\"note\">" + esc(p["note"].get<std::string>()) + "</p>";
    h += "</p>";
    const std::string y = p["y"].get<std::string>();
    if (!y.empty() && !t["eps"].empty()) {
      h += fmt::format("<h3>To reach {} &le; eps ({} levels)</h3><p class=\"note\">median [min, max] reached/runs; "
                       "&gt; marks a censored value: the run stopped (its budget) before reaching eps; n/a: the run "
                       "has no such measure (e.g. no objective recorded).</p>",
                       esc(p["y_label"].get<std::string>()), esc(p.value("levels", std::string("absolute"))));
      h += "<table class=\"eps\"><tr><th>solver</th><th>measure</th>";
      for (const auto& e : t["eps"]) h += "<th>eps = " + esc(format_number(e.get<double>())) + "</th>";
      h += "</tr>";
      for (const auto& js : p["solvers"])
        for (const auto& a : p["reach_axes"]) {
          const std::string axis = a.get<std::string>();
          h += "<tr><td>" + esc(js["solver"].get<std::string>()) + "</td><td>" + esc(axis) + "</td>";
          for (const auto& je : js["reach"]) h += "<td>" + cell(je[axis]) + "</td>";
          h += "</tr>";
        }
      h += "</table>";
    }
    const std::vector<std::string> cols = final_columns(p);
    h += "<h3>Final values and status</h3><p class=\"note\">" + esc(final_heading(p)) + " over repeats</p>"
         "<table class=\"final\"><tr><th>solver</th><th>runs</th><th>status</th>";
    for (const auto& c : cols) h += "<th>" + esc(c) + "</th>";
    h += "</tr>";
    for (const auto& js : p["solvers"]) {
      std::string st;
      for (auto& [name, n] : js["status"].items())
        st += fmt::format("{}<span class=\"st-{}\">{} {}</span>", st.empty() ? "" : ", ", esc(name), esc(name),
                          n.get<int>());
      h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td>", esc(js["solver"].get<std::string>()),
                       js["runs"].get<int>(), st);
      for (const auto& c : cols) {
        std::string v = js.value("na", 0) == js["runs"].get<int>() ? "n/a" : "-";
        if (js["final"].contains(c)) {
          const json& f = js["final"][c];
          v = fmt::format("{} [{}, {}]", format_number(f["median"].is_number() ? f["median"].get<double>() : kNaN),
                          format_number(f["min"].get<double>()), format_number(f["max"].get<double>()));
        }
        h += "<td>" + esc(v) + "</td>";
      }
      h += "</tr>";
    }
    h += "</table></div>";
  }
  return h;
}

std::string runs_html(const json& t, const RunSet& set) {
  std::map<std::string, int> counts;
  for (const auto& r : t["runs"]) counts[r["status"].get<std::string>()]++;
  std::string summary;
  for (auto& [s, n] : counts) summary += fmt::format("{}<span class=\"st-{}\">{} {}</span>", summary.empty() ? "" : ", ",
                                                     esc(s), esc(s), n);
  std::string h = fmt::format("<details id=\"runs\"><summary>Runs ({}): {}</summary><table class=\"runs\">"
                              "<tr><th>problem</th><th>solver</th><th>run</th><th>status</th><th>checkpoints</th>"
                              "<th>final</th><th>message</th></tr>",
                              t["runs"].size(), summary);
  for (const auto& r : t["runs"]) {
    std::string fin;
    for (auto& [name, v] : r["final"].items())
      if (v.is_number()) fin += (fin.empty() ? "" : ", ") + name + " " + format_number(v.get<double>());
    const std::string st = r["status"].get<std::string>();
    h += fmt::format("<tr><td>{}</td><td>{}</td><td title=\"{}\">{}</td><td class=\"st-{}\">{}</td><td>{}</td>"
                     "<td>{}</td><td>{}</td></tr>",
                     r["problem"].get<std::size_t>() + 1, esc(r["solver"].get<std::string>()),
                     esc(r["path"].get<std::string>()), esc(r["run_id"].get<std::string>()), esc(st), esc(st),
                     r["checkpoints"].get<std::size_t>(), esc(fin), esc(r["message"].get<std::string>()));
  }
  h += "</table></details>";
  for (const auto& w : set.warnings) h += "<p class=\"warn\">warning: " + esc(w) + "</p>";
  return h;
}

// The page's script: one uPlot chart per problem for the chosen (x, y); medians as steps, the
// min-max band between two hidden edge series. Test hooks: data-yticks/data-xticks on each plot
// (the labels the axes drew), data-resources on <body> (resources fetched: 0 when offline), and
// #hover in the URL moves the mouse over the first chart (the legend then shows the values).
const char* kScript = R"JS(
(function () {
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById('dualgap-data').textContent);
  var state = {x: D.x, y: D.y, logx: 'auto', logy: 'auto', hidden: {}};
  var charts = [];
  var SUP = {'-': '\u207b', '0': '\u2070', '1': '\u00b9', '2': '\u00b2', '3': '\u00b3', '4': '\u2074',
             '5': '\u2075', '6': '\u2076', '7': '\u2077', '8': '\u2078', '9': '\u2079'};
  function pow10(e) { return '10' + String(e).split('').map(function (c) { return SUP[c]; }).join(''); }
  function powb(b, e) { return String(b) + String(e).split('').map(function (c) { return SUP[c]; }).join(''); }
  // One format for every label: the powers as 10^k (2^k on the profiles' base-2 axis); on a
  // base-10 axis spanning fewer than two decades, 2x and 5x ticks are labelled as well, so at least
  // two labels are always shown. `box` gets the labels drawn (data-xticks, data-yticks).
  function logValues(box, which, base) {
    base = base || 10;
    return function (u, splits) {
      if (base !== 10) {
        var o2 = splits.map(function (v) { var e = Math.log(v) / Math.log(base); return Math.abs(e - Math.round(e)) < 1e-9 ? powb(base, Math.round(e)) : ''; });
        box.setAttribute('data-' + which + 'ticks', o2.filter(Boolean).join(' '));
        return o2;
      }
      var decades = splits.filter(function (v) { var e = Math.log10(v); return Math.abs(e - Math.round(e)) < 1e-9; }).length;
      var out = splits.map(function (v) {
        var e = Math.floor(Math.log10(v) + 1e-9), m = Math.round(v / Math.pow(10, e));
        if (Math.abs(v / Math.pow(10, e) - m) > 1e-6) return '';
        if (m === 1) return pow10(e);
        if (decades < 2 && (m === 2 || m === 5)) return m + '\u00d7' + pow10(e);
        return '';
      });
      box.setAttribute('data-' + which + 'ticks', out.filter(Boolean).join(' '));
      return out;
    };
  }
  function linValues(box, which) {
    return function (u, splits) {
      var out = splits.map(function (v) { return v == null ? '' : String(+v.toPrecision(6)); });
      box.setAttribute('data-' + which + 'ticks', out.join(' '));
      return out;
    };
  }
  function sortedUnique(xs) {
    xs.sort(function (a, b) { return a - b; });
    return xs.filter(function (v, i) { return i === 0 || v !== xs[i - 1]; });
  }
  function colorOf(n) { return D.colors[D.solvers.indexOf(n)]; }
  function widthOf(box, least) { return Math.max(least, box.clientWidth || (document.body.clientWidth - 40) / 2); }
  // A profile panel (profile_panels: per solver a step line x / median). uPlot wants one x for
  // all series: the union of the breakpoints, each line read as the step function it is.
  function buildProfile(k) {
    var box = document.getElementById('profile-' + k);
    if (!box || !D.profile) return null;
    box.innerHTML = '';
    var P = D.profile.panels[k];
    var lines = P.series.filter(function (s) { return !state.hidden[s.label]; });
    box.setAttribute('data-lines', String(lines.length));
    if (lines.length === 0) { box.textContent = 'No solver shown solved a problem.'; return null; }
    var xs = [];
    lines.forEach(function (s) { xs = xs.concat(s.x); });
    xs = sortedUnique(xs);
    var stepped = uPlot.paths.stepped({align: 1});
    var data = [xs], series = [{label: P.xlabel, value: fmtValue}];
    lines.forEach(function (s) {
      data.push(xs.map(function (x) { var v = null; for (var i = 0; i < s.x.length && s.x[i] <= x; i++) v = s.median[i]; return v; }));
      series.push({label: s.label, stroke: colorOf(s.label), width: 1.8, paths: stepped, points: {show: false}, value: fmtValue});
    });
    var width = widthOf(box, 300);
    return new uPlot({
      width: width, height: Math.round(Math.min(380, Math.max(240, width * 0.6))),
      scales: {x: {time: false, distr: 3, log: P.log_base_x}, y: {range: [0, 1.02]}},
      axes: [{label: P.xlabel, values: logValues(box, 'x', P.log_base_x), size: 44},
             {label: P.ylabel, values: linValues(box, 'y'), size: 50, labelSize: 24}],
      series: series, cursor: {drag: {x: true, y: false}, points: {show: false}}, legend: {live: true},
    }, data, box);
  }
  // A strip plot of final values (finals_json): a point per run at its series' place plus its
  // offset, a bar at the median; series named on the x axis (cut to fit; the table has them whole).
  function buildStrip(pi, k) {
    var F = D.problems[pi].finals, P = F.panels[k], box = document.getElementById('strip-' + pi + '-' + k);
    box.innerHTML = '';
    var half = D.strip_median_half_width;
    var shown = P.series.filter(function (s) { return !state.hidden[s.label]; });
    var xs = [];
    shown.forEach(function (s) {
      s.offsets.forEach(function (o) { xs.push(s.position + o); });
      if (s.median != null) xs.push(s.position - half, s.position + half);
    });
    xs = sortedUnique(xs);
    var data = [xs], series = [{label: 'series'}], points = 0, medians = 0;
    var none = function () { return xs.map(function () { return null; }); };
    var at = function (v) { return P.floor != null && v <= 0 ? P.floor : v; };  // the log axis' floor
    shown.forEach(function (s) {
      var c = colorOf(s.label), col = none(), med = none();
      s.values.forEach(function (v, i) { col[xs.indexOf(s.position + s.offsets[i])] = at(v); points++; });
      data.push(col);
      series.push({label: s.label, stroke: c, paths: function () { return null; }, points: {show: true, size: 7, width: 0, fill: c + 'c0'}});
      if (s.median != null) { med[xs.indexOf(s.position - half)] = at(s.median); med[xs.indexOf(s.position + half)] = at(s.median); medians++; }
      data.push(med);
      series.push({label: s.label + ' median', stroke: c, width: 3, spanGaps: true, points: {show: false}});
    });
    box.setAttribute('data-points', String(points));
    box.setAttribute('data-medians', String(medians));
    if (points === 0) { box.textContent = shown.length < P.series.length ? 'All solvers are hidden.' : 'No run has this value.'; return null; }
    var width = widthOf(box, 260), cats = F.categories;
    var room = Math.max(3, Math.floor((width - 70) / cats.length / 8) - 1);  // ~8 px a character, one spare
    var short = function (n) { return n.length > room ? n.slice(0, room - 1) + '\u2026' : n; };
    return new uPlot({
      width: width, height: 230, legend: {show: false}, cursor: {points: {show: false}},
      scales: {x: {time: false, range: function () { return [-0.6, cats.length - 0.4]; }}, y: {distr: P.log_y ? 3 : 1}},
      axes: [{splits: function () { return cats.map(function (c, i) { return i; }); },
              values: function (u, splits) { return splits.map(function (v) { return cats[v] == null ? '' : short(cats[v]); }); },
              grid: {show: false}, size: 30},
             {values: P.log_y ? logValues(box, 'y', 10) : linValues(box, 'y'), size: 64}],
      series: series,
    }, data, box);
  }
  function fmtValue(u, v) { return v == null ? '--' : (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(3) : String(+v.toPrecision(4))); }
  function alpha(c, a) { return c + a; }
  function build(pi) {
    var P = D.problems[pi], box = document.getElementById('plot-' + pi), msg = document.getElementById('msg-' + pi);
    box.innerHTML = '';
    msg.textContent = '';
    var c = P.curves[state.x + '|' + state.y];
    if (!c) { msg.textContent = 'No ' + (D.labels[state.y] || state.y) + ' against ' + (D.labels[state.x] || state.x) + ' for this problem.'; return null; }
    var lx = state.logx === 'auto' ? c.lx : state.logx === 'log';
    var ly = state.logy === 'auto' ? c.ly : state.logy === 'log';
    var pos = function (v) { return v == null || !isFinite(v) || (ly && v <= 0) ? null : v; };
    var xs = [], keep = [];
    for (var i = 0; i < c.g.length; i++) if (!lx || c.g[i] > 0) { keep.push(i); xs.push(c.g[i]); }
    var data = [xs], series = [{label: D.labels[state.x] || state.x, value: function (u, v) { return fmtValue(u, v); }}], bands = [];
    var stepped = uPlot.paths.stepped({align: 1});
    var names = D.solvers.filter(function (n) { return c.s[n] && !state.hidden[n]; });
    names.forEach(function (n) {
      var s = c.s[n], color = D.colors[D.solvers.indexOf(n)];
      var pick = function (k) { return keep.map(function (i) { return pos(s[k][i]); }); };
      data.push(pick(0));
      series.push({label: n + ' (' + c.n[n] + (c.n[n] === 1 ? ' run)' : ' runs)'), stroke: color, width: 1.8,
                   paths: stepped, points: {show: false}, value: fmtValue, spanGaps: false});
      data.push(pick(2)); data.push(pick(1));
      series.push({label: n + ' max', stroke: 'transparent', paths: stepped, points: {show: false}, class: 'band-edge', value: fmtValue});
      series.push({label: n + ' min', stroke: 'transparent', paths: stepped, points: {show: false}, class: 'band-edge', value: fmtValue});
      bands.push({series: [data.length - 2, data.length - 1], fill: alpha(color, '2e')});
    });
    if (names.length === 0) { msg.textContent = 'All solvers are hidden.'; return null; }
    var width = Math.max(320, box.clientWidth || document.body.clientWidth - 40);
    var opts = {
      width: width, height: Math.round(Math.min(520, Math.max(300, width * 0.38))),
      scales: {x: {time: false, distr: lx ? 3 : 1}, y: {distr: ly ? 3 : 1}},
      axes: [{label: (D.labels[state.x] || state.x), values: lx ? logValues(box, 'x') : linValues(box, 'x'), size: 44},
             {label: (c.yl || D.labels[c.y] || c.y), values: ly ? logValues(box, 'y') : linValues(box, 'y'), size: 70, labelSize: 24}],
      series: series, bands: bands,
      cursor: {drag: {x: true, y: true, uni: 30}, points: {show: false}},
      legend: {live: true},
    };
    return new uPlot(opts, data, box);
  }
  function showTables() {
    var divs = document.querySelectorAll('div.tables');
    for (var i = 0; i < divs.length; i++) divs[i].style.display = divs[i].getAttribute('data-y') === state.y ? '' : 'none';
    var none = document.querySelectorAll('p.no-tables');
    for (var j = 0; j < none.length; j++) none[j].style.display = D.tabled.indexOf(state.y) >= 0 ? 'none' : '';
  }
  function drawAll() {
    charts.forEach(function (u) { if (u) u.destroy(); });
    charts = [];
    for (var i = 0; i < D.problems.length; i++) {
      charts.push(build(i));
      for (var k = 0; k < D.problems[i].finals.panels.length; k++) charts.push(buildStrip(i, k));
    }
    charts.push(buildProfile(0), buildProfile(1));
    showTables();
  }
  function select(id, keys, value, onchange) {
    var s = document.getElementById(id);
    keys.forEach(function (k) { var o = document.createElement('option'); o.value = k; o.textContent = D.labels[k] || k; if (k === value) o.selected = true; s.appendChild(o); });
    s.addEventListener('change', function () { onchange(s.value); drawAll(); });
  }
  select('sel-x', D.xs, state.x, function (v) { state.x = v; state.logx = 'auto'; document.getElementById('sel-logx').value = 'auto'; });
  select('sel-y', D.ys, state.y, function (v) { state.y = v; state.logy = 'auto'; document.getElementById('sel-logy').value = 'auto'; });
  document.getElementById('sel-logx').addEventListener('change', function (e) { state.logx = e.target.value; drawAll(); });
  document.getElementById('sel-logy').addEventListener('change', function (e) { state.logy = e.target.value; drawAll(); });
  var box = document.getElementById('solvers');
  D.solvers.forEach(function (n, i) {
    var l = document.createElement('label'), cb = document.createElement('input'), sw = document.createElement('span');
    cb.type = 'checkbox'; cb.checked = true; cb.setAttribute('data-solver', n);
    cb.addEventListener('change', function () { state.hidden[n] = !cb.checked; drawAll(); });
    sw.className = 'swatch'; sw.style.background = D.colors[i];
    l.appendChild(cb); l.appendChild(sw); l.appendChild(document.createTextNode(n));
    box.appendChild(l);
  });
  var resizeTimer = null;
  window.addEventListener('resize', function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(drawAll, 150); });
  drawAll();
  if (location.hash === '#hover') {
    var u = charts.filter(Boolean)[0];
    if (u) {
      var r = u.over.getBoundingClientRect();
      u.over.dispatchEvent(new MouseEvent('mouseenter', {clientX: r.left + r.width * 0.5, clientY: r.top + r.height * 0.5, bubbles: true}));
      u.over.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width * 0.5, clientY: r.top + r.height * 0.5, bubbles: true}));
    }
  }
  document.body.setAttribute('data-render-ms', (performance.now() - t0).toFixed(1));  // script: parse + draw
  document.body.setAttribute('data-ready-ms', performance.now().toFixed(1));  // since navigation start
  document.body.setAttribute('data-resources', String(performance.getEntriesByType('resource').length));
})();
)JS";

const char* kStyle = R"CSS(
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:16px 20px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 6px} h2{font-size:16px;margin:26px 0 6px;border-bottom:1px solid #ddd} h3{font-size:14px;margin:14px 0 4px}
#controls{position:sticky;top:0;background:#fafafa;border:1px solid #ddd;padding:8px 10px;z-index:2}
#controls label{margin-right:14px;white-space:nowrap} select{margin-left:4px}
.swatch{display:inline-block;width:14px;height:4px;margin:0 4px 3px 3px;vertical-align:middle}
.plot{width:100%} .u-legend .band-edge{display:none} .u-legend{font-size:12.5px;text-align:left}
table{border-collapse:collapse;margin:4px 0 10px;font-size:12.5px} td,th{border:1px solid #ddd;padding:2px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3} .note{color:#666;font-size:12px;margin:2px 0} .warn{color:#a40}
.st-done{color:#262} .st-budget{color:#555} .st-timeout{color:#b60} .st-failed,.st-diverged{color:#c00;font-weight:bold}
.finals,.profiles{display:flex;flex-wrap:wrap;gap:8px 18px} .strip-box{flex:1 1 300px;min-width:260px;max-width:560px}
.profiles .pplot{flex:1 1 420px;min-width:300px} .strip-title{font-size:12.5px;color:#444;margin:4px 0 0}
.msg{color:#a40} .v.holds{color:#262;font-weight:bold} .v.fails{color:#c00;font-weight:bold} .v.other{color:#666}
)CSS";

/// The claims section at the top of the report: a summary line, then one row per claim with the
/// paper's figure, the paper's result, what these runs measure and the verdict (as `dualgap check`).
std::string verdicts_html(const json& files, const std::string& scale) {
  if (!files.is_array() || files.empty()) return "";
  int counts[4] = {0, 0, 0, 0};  // holds, fails, not measurable, other (skipped, external)
  int off_scale = 0;             // verdicts on runs not at the claim's scale
  std::string rows;
  for (const auto& f : files)
    for (const auto& c : f["claims"]) {
      off_scale += c.contains("scale_differences") && c["scale_differences"].is_array() && !c["scale_differences"].empty();
      const std::string v = c["verdict"].get<std::string>();
      const bool external = c["kind"] == "external";
      const int k = external ? 3 : v == "holds" ? 0 : v == "fails" ? 1 : v == "not measurable" ? 2 : 3;
      ++counts[k];
      std::string shown = external ? "measured elsewhere" : v == "skipped" ? "full scale only" : v;
      if (!external) shown = c.value("verdict_text", shown);
      const char* cls = k == 0 ? "holds" : k == 1 ? "fails" : "other";
      std::string measured = c["measured"].get<std::string>();
      const std::string reason = c["reason"].get<std::string>();
      if (!reason.empty() && (k == 1 || k == 2)) measured += (measured.empty() ? "" : " — ") + reason;
      rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"v {}\">{}</td></tr>",
                          esc(c["id"].get<std::string>()), esc(c["text"].get<std::string>()),
                          esc(c["ref"].get<std::string>()), esc(c["paper"].get<std::string>()), esc(measured), cls,
                          esc(shown));
    }
  std::string h = "<section id=\"claims\"><h2>Claims</h2>";
  h += fmt::format("<p class=\"note\">The paper's claims of the files below, evaluated on these runs by the code of "
                   "<code>dualgap check</code>{}: <b>{} hold</b>, <b>{} fail</b>, {} not measurable, {} other "
                   "(checked by the full-scale run only, or measured by another tool).{}</p>",
                   scale == "ci" ? " at CI scale" : "", counts[0], counts[1], counts[2], counts[3],
                   off_scale ? fmt::format(" <b>{} verdict{} on runs not at the claim's scale</b> (the differences are "
                                           "listed with each).",
                                           off_scale, off_scale == 1 ? " is" : "s are")
                             : "");
  for (const auto& f : files) {
    const std::string paper = f.value("paper", std::string());
    h += "<p class=\"note\">" + esc(f["claims_file"].get<std::string>()) + (paper.empty() ? "" : ": " + esc(paper)) +
         "</p>";
  }
  h += "<table class=\"claims\"><tr><th>claim</th><th>statement</th><th>paper</th><th>paper's result</th>"
       "<th>measured here</th><th>verdict</th></tr>" + rows + "</table></section>\n";
  return h;
}

// A problem's final values, run by run: a strip plot per quantity of finals_json, drawn by the
// page's script into the strip-PROBLEM-PANEL boxes.
std::string finals_html(const json& finals, std::size_t pi) {
  const json& fp = finals["problems"][pi];
  std::string h = "<h3>Final values over repeats</h3><p class=\"note\">" + esc(finals["notes"][0].get<std::string>()) +
                  fmt::format(" The numbers of the final-values table of y = {} (the report's first y; they do "
                              "not follow the y selector).",
                              esc(finals["y"].get<std::string>()));
  for (const auto& n : fp["notes"]) h += " " + esc(n.get<std::string>());
  h += "</p><div class=\"finals\">";
  for (std::size_t k = 0; k < fp["panels"].size(); ++k)
    h += fmt::format("<div class=\"strip-box\"><p class=\"strip-title\">{}</p><div class=\"strip\" "
                     "id=\"strip-{}-{}\"></div></div>",
                     esc(fp["panels"][k]["label"].get<std::string>()), pi, k);
  return h + "</div>";
}

// The profiles section: the caption and ranking of `profile` and two boxes the page's script draws
// the panels into; without a profile (fewer problems than kHtmlProfileProblems), why not.
std::string profiles_html(const Profile* profile, std::size_t problems) {
  std::string h = "<section id=\"profiles\"><h2>Performance and data profiles</h2>";
  if (!profile)
    return h + fmt::format("<p class=\"note\" id=\"profiles-none\">Not shown: profiles compare solvers across "
                           "problems and are drawn from {} problems on; these runs have {} (the time-to-reach table "
                           "of each problem says more).</p></section>\n",
                           kHtmlProfileProblems, problems);
  h += fmt::format("<p class=\"note\">Performance profile (Dolan &amp; Mor&eacute;): rho<sub>s</sub>(tau), the "
                   "fraction of problems solver s solved within tau times the best solver's cost; data profile "
                   "(Mor&eacute; &amp; Wild): d<sub>s</sub>(alpha), the fraction solved within a budget alpha. Cost: "
                   "{}, the report's x when it was written (the profiles do not follow the selectors).",
                   esc(profile->measure));
  for (const auto& n : profile->notes()) h += " " + esc(n);
  h += "</p><div class=\"profiles\"><div class=\"pplot\" id=\"profile-0\"></div><div class=\"pplot\" "
       "id=\"profile-1\"></div></div>";
  const Table t = profile_table(*profile);
  h += "<table class=\"ranking\"><tr>";
  for (const auto& c : t.header) h += "<th>" + esc(c) + "</th>";
  h += "</tr>";
  for (const auto& row : t.rows) {
    h += "<tr>";
    for (const auto& c : row) h += "<td>" + esc(c) + "</td>";
    h += "</tr>";
  }
  return h + "</table></section>\n";
}

// y quantities whose tables are precomputed (all convergence measures and errors; a raw column
// chosen in the page shows a note instead of stale tables).
bool tabled(const std::string& y) {
  const SeriesDef* d = find_series(y);
  return d && d->role == SeriesDef::Role::y;
}

}  // namespace

std::vector<std::string> uplot_search_dirs() {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("DUALGAP_UPLOT_DIR"); env && *env) dirs.emplace_back(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back((exe.parent_path() / ".." / "share" / "dualgap" / "uplot").lexically_normal().string());
  for (const char* var : {"NPM_CONFIG_PREFIX", "npm_config_prefix"})
    if (const char* env = std::getenv(var); env && *env) dirs.push_back(std::string(env) + "/lib/node_modules/uplot/dist");
  if (const char* home = std::getenv("HOME"); home && *home) {
    dirs.push_back(std::string(home) + "/.npm-global/lib/node_modules/uplot/dist");
    dirs.push_back(std::string(home) + "/.local/lib/node_modules/uplot/dist");
  }
  for (const char* d : {"/usr/local/lib/node_modules/uplot/dist", "/usr/lib/node_modules/uplot/dist",
                        "/usr/share/nodejs/uplot/dist", "/opt/homebrew/lib/node_modules/uplot/dist"})
    dirs.emplace_back(d);
  return dirs;
}

UplotFiles load_uplot(const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string looked;
  for (const auto& d : dirs) {
    const fs::path js = fs::path(d) / "uPlot.iife.min.js", css = fs::path(d) / "uPlot.min.css";
    looked += "\n  " + d;
    if (!fs::is_regular_file(js, ec) || !fs::is_regular_file(css, ec)) continue;
    auto read = [](const fs::path& p) {
      std::ifstream in(p, std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      return s.str();
    };
    UplotFiles u{read(js), read(css)};
    if (u.js.find("uPlot") == std::string::npos) continue;  // not the library (truncated, other file)
    return u;
  }
  throw std::runtime_error("the HTML report needs uPlot (npm package 'uplot': uPlot.iife.min.js and uPlot.min.css), "
                           "not found in:" + looked + "\nrun scripts/setup.sh (npm install -g uplot) or set "
                           "DUALGAP_UPLOT_DIR to the package's dist directory");
}

std::string render_html(const RunSet& set, const HtmlOptions& html, const Options& options) {
  const UplotFiles uplot = load_uplot(uplot_search_dirs());
  json data;
  data["solvers"] = set.solvers;
  json colors = json::array();
  for (const auto& label : set.solvers) colors.push_back(series_style(set, label).first);
  data["colors"] = colors;
  data["oracle_cost"] = options.oracle_cost;

  // axes present in the runs
  std::set<std::string> columns;
  for (const auto& r : set.runs)
    for (const auto& [name, v] : r.curve) columns.insert(name);
  // Offered: every registered series whose column some run has (computed ones always), the
  // ones against a certified dual only where a problem has one, replay-only ones with a replay.
  bool any_dual = false;
  for (const auto& p : set.problems) any_dual = any_dual || p.has_dual;
  std::vector<std::string> xs, ys;
  for (const auto& d : series_registry()) {
    if (!d.column.empty() && !columns.count(d.column)) continue;
    if (d.needs_certified_dual && !any_dual) continue;
    if (d.only_with_replay && options.oracle_cost == 1.0) continue;
    (d.role == SeriesDef::Role::x ? xs : ys).push_back(d.name);
  }
  for (const auto& c : columns)
    if (std::find(ys.begin(), ys.end(), c) == ys.end() && !find_series(c)) ys.push_back(c);
  json labels = json::object();
  for (const auto& k : xs) labels[k] = axis_label(k, options.oracle_cost);
  for (const auto& k : ys) labels[k] = axis_label(k, options.oracle_cost);
  data["xs"] = xs;
  data["ys"] = ys;
  data["labels"] = labels;
  const std::string x0 = std::find(xs.begin(), xs.end(), html.x) != xs.end() ? html.x : (xs.empty() ? "" : xs.front());
  const std::string y0 = std::find(ys.begin(), ys.end(), html.y) != ys.end() ? html.y : (ys.empty() ? "" : ys.front());
  data["x"] = x0;
  data["y"] = y0;

  json problems = json::array();
  for (const auto& p : set.problems) {
    json jp = {{"label", p.label}, {"approximate", p.approximate}, {"has_dual", p.has_dual}};
    json curves = json::object();
    for (const auto& x : xs)
      for (const auto& y : ys) {
        Curves c = make_curves(set, p, x, y, options);
        if (c.bands.empty()) continue;
        json jc = {{"g", rounded(c.grid)}, {"lx", c.log_x}, {"ly", c.log_y}, {"y", c.y}, {"yl", c.label}};
        json s = json::object(), n = json::object();
        for (const auto& b : c.bands) {
          s[b.solver] = json::array({rounded(b.median), rounded(b.lo), rounded(b.hi)});
          n[b.solver] = b.runs;
        }
        jc["s"] = std::move(s);
        jc["n"] = std::move(n);
        curves[x + "|" + y] = std::move(jc);
      }
    jp["curves"] = std::move(curves);
    problems.push_back(std::move(jp));
  }
  data["problems"] = std::move(problems);

  // Tables for every y the selector offers that the registry knows: they follow the chosen y.
  std::vector<std::string> tabled_ys;
  for (const auto& y : ys)
    if (tabled(y)) tabled_ys.push_back(y);
  if (std::find(tabled_ys.begin(), tabled_ys.end(), y0) == tabled_ys.end() && !y0.empty()) tabled_ys.push_back(y0);
  data["tabled"] = tabled_ys;
  std::vector<std::string> table_parts;
  json first_tables;
  for (const auto& y : tabled_ys) {
    json t = compute_tables(set, y, html.eps, options);
    table_parts.push_back(tables_html(t));
    if (y == y0 || first_tables.is_null()) first_tables = std::move(t);
  }

  // The final values of the first y's tables, run by run (one strip plot per quantity and problem).
  const json finals = finals_json(first_tables);
  data["strip_median_half_width"] = finals["median_half_width"];
  for (std::size_t pi = 0; pi < set.problems.size(); ++pi) data["problems"][pi]["finals"] = finals["problems"][pi];

  // Profiles: from kHtmlProfileProblems problems on, the numbers of --profile (profile.cpp), the
  // caption of the figure (Profile::notes).
  std::optional<Profile> profile = html.profile;
  const bool show_profiles = set.problems.size() >= kHtmlProfileProblems && !x0.empty() && !y0.empty();
  if (show_profiles && !profile) {
    ProfileOptions po;
    po.measure = x0;
    po.y = y0;
    po.tol = html.profile_tol;
    profile = compute_profile(set, po, options);
  }
  data["profile"] = show_profiles ? json{{"profile", profile_json(*profile)}, {"panels", profile_panels(*profile)}}
                                  : json(nullptr);

  const std::string payload = script_json(data);

  std::string h;
  h.reserve(payload.size() + uplot.js.size() + 256 * 1024);
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       "<title>" + esc(html.title) + "</title><style>" + uplot.css + "</style><style>" + kStyle + "</style></head><body>\n";
  h += "<h1>" + esc(html.title) + "</h1>";
  h += fmt::format("<p class=\"note\">{} runs, {} problems, {} solvers. Suboptimality is measured against the best "
                   "bounds over all runs of a problem (primal: P - best certified dual; dual: best primal - D). "
                   "Lines: median over repeats (steps: a run's value holds until its next checkpoint), bands: min-max; "
                   "a run contributes until its last checkpoint. Drag to zoom, double-click to reset; hover for values.",
                   set.runs.size(), set.problems.size(), set.solvers.size());
  if (options.oracle_cost != 1.0)
    h += fmt::format(" <b>Assumption: each exact oracle call costs {:g}x its recorded time</b> (time axes replayed "
                     "from the recorded oracle time; 'solver time (as recorded)' shows the measurement).",
                     options.oracle_cost);
  h += "</p>\n";
  h += verdicts_html(html.verdicts, html.verdicts_scale);
  h += "<div id=\"controls\"><label>x <select id=\"sel-x\"></select></label>"
       "<label>y <select id=\"sel-y\"></select></label>"
       "<label>x scale <select id=\"sel-logx\"><option value=\"auto\">auto</option><option value=\"linear\">linear"
       "</option><option value=\"log\">log</option></select></label>"
       "<label>y scale <select id=\"sel-logy\"><option value=\"auto\">auto</option><option value=\"linear\">linear"
       "</option><option value=\"log\">log</option></select></label>"
       "<span id=\"solvers\"></span></div>\n";
  for (std::size_t pi = 0; pi < set.problems.size(); ++pi) {
    const Problem& p = set.problems[pi];
    h += fmt::format("<section class=\"problem\" id=\"problem-{}\"><h2>Problem {}: {}{}</h2>", pi, pi + 1, esc(p.label),
                     p.approximate ? " <span class=\"warn\">[approximate]</span>" : "");
    if (!p.note.empty()) h += "<p class=\"note\">" + esc(p.note) + "</p>";
    h += fmt::format("<p class=\"msg\" id=\"msg-{}\"></p><div class=\"plot\" id=\"plot-{}\"></div>", pi, pi);
    h += finals_html(finals, pi);
    // this problem's tables, one block per y (the page shows the chosen y's)
    const std::string open = fmt::format("<div class=\"tables\" data-problem=\"{}\"", pi);
    for (std::size_t k = 0; k < table_parts.size(); ++k) {
      const std::string& part = table_parts[k];
      auto a = part.find(open);
      auto b = part.find("<div class=\"tables\" data-problem=", a + open.size());
      if (a == std::string::npos) continue;
      std::string block = part.substr(a, b == std::string::npos ? std::string::npos : b - a);
      if (tabled_ys[k] != y0) block.insert(block.find('>'), " style=\"display:none\"");
      h += block;
    }
    h += "<p class=\"note no-tables\" style=\"display:none\">No tables for this y (a raw curve column): choose a "
         "suboptimality, objective or error.</p>";
    h += "</section>\n";
  }
  h += profiles_html(show_profiles ? &*profile : nullptr, set.problems.size());
  h += "<h2>Runs</h2>" + runs_html(first_tables, set);
  std::string js = uplot.js;
  for (std::size_t pos = 0; (pos = js.find("</script", pos)) != std::string::npos; pos += 3) js.replace(pos, 2, "<\\/");
  h += "\n<script type=\"application/json\" id=\"dualgap-data\">" + payload + "</script>\n<script>" + js +
       "</script>\n<script>" + kScript + "</script>\n</body></html>\n";
  return h;
}

}  // namespace dualgap::compare
