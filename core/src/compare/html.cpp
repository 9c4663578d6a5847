// Self-contained interactive HTML report: embedded JSON of resampled medians/bands (never raw
// checkpoints, to stay small), a small hand-written SVG plotter, and static tables. No external
// script, style or font: the file works offline.
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "compare/model.hpp"

using nlohmann::json;

namespace dualgap::compare {

namespace {

const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

const std::vector<std::string> kXAxes = {"passes", "oracle_calls", "approx_oracle_calls", "time", "oracle_time"};

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

std::string tables_html(const json& t, const RunSet& set) {
  std::string h;
  const double k = t.value("oracle_cost", 1.0);
  for (std::size_t pi = 0; pi < t["problems"].size(); ++pi) {
    const json& p = t["problems"][pi];
    h += fmt::format("<div class=\"tables\" data-problem=\"{}\">", pi);
    h += "<p>" + bounds_sentence(p, true);
    if (!p["has_dual"].get<bool>())
      h += " No certified dual: suboptimality is the <b>relative objective</b> (F - F<sub>best</sub>)/F<sub>best</sub>.";
    if (p["approximate"].get<bool>())
      h += " <span class=\"warn\">Approximate primal/dual (approximate oracle, e.g. Potts alpha-expansion): bounds "
           "are not certified and gaps can be negative.</span>";
    if (k != 1.0)
      h += fmt::format(" Times replayed as if each exact oracle call cost <b>{:g}x</b> its recorded time.", k);
    h += "</p>";
    const std::string y = p["y"].get<std::string>();
    if (!y.empty() && !t["eps"].empty()) {
      h += fmt::format("<h3>To reach {} &le; eps</h3><p class=\"note\">median [min, max] reached/runs; "
                       "&gt; marks a censored value: the run stopped (its budget) before reaching eps.</p>",
                       esc(p["y_label"].get<std::string>()));
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
    std::vector<std::string> cols;
    for (const auto& js : p["solvers"])
      for (auto& [name, v] : js["final"].items())
        if (std::find(cols.begin(), cols.end(), name) == cols.end()) cols.push_back(name);
    h += "<h3>Final values and status</h3><p class=\"note\">median [min, max] over repeats</p>"
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
        std::string v = "-";
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
  (void)set;
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

// The plotter: small on purpose. Each solver's median is <path class="median" data-solver=...>,
// its band <path class="band" data-solver=...>, so tests can find the series in the DOM.
const char* kScript = R"JS(
(function () {
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById('dualgap-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var state = {x: D.x, y: D.y, logx: 'auto', logy: 'auto', hidden: {}};
  var W = 900, H = 400, ML = 72, MR = 16, MT = 14, MB = 46;

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v) {
    if (v === 0) return '0';
    var a = Math.abs(v);
    if (a >= 1e4 || a < 1e-2) return v.toExponential(0).replace('e+', 'e');
    return String(+v.toPrecision(3));
  }
  function ticks(lo, hi, log) {
    var out = [];
    if (log) {
      var a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi));
      var step = Math.max(1, Math.ceil((b - a) / 8));
      for (var e = a; e <= b; e += step) out.push(Math.pow(10, e));
      if (out.length < 3) { out = []; for (var e2 = a; e2 <= b; e2++) [1, 2, 5].forEach(function (m) { out.push(m * Math.pow(10, e2)); }); }
      return out.filter(function (v) { return v >= lo * 0.999 && v <= hi * 1.001; });
    }
    var span = hi - lo || Math.abs(hi) || 1, raw = span / 6, p = Math.pow(10, Math.floor(Math.log10(raw)));
    var s = [1, 2, 5, 10].map(function (m) { return m * p; }).find(function (m) { return m >= raw; });
    for (var v = Math.ceil(lo / s) * s; v <= hi + s * 1e-9; v += s) out.push(Math.abs(v) < s * 1e-9 ? 0 : v);
    return out;
  }
  function draw(pi) {
    var P = D.problems[pi];
    var svg = document.getElementById('plot-' + pi);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var c = P.curves[state.x + '|' + state.y];
    var msg = document.getElementById('msg-' + pi);
    msg.textContent = '';
    if (!c) { msg.textContent = 'No ' + (D.labels[state.y] || state.y) + ' against ' + (D.labels[state.x] || state.x) + ' for this problem.'; return; }
    var lx = state.logx === 'auto' ? c.lx : state.logx === 'log';
    var ly = state.logy === 'auto' ? c.ly : state.logy === 'log';
    var ok = function (v, log) { return v !== null && isFinite(v) && (!log || v > 0); };
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    var names = Object.keys(c.s).filter(function (n) { return !state.hidden[n]; });
    names.forEach(function (n) {
      var s = c.s[n];
      for (var i = 0; i < c.g.length; i++) {
        if (!ok(c.g[i], lx) || !ok(s[0][i], ly)) continue;
        x0 = Math.min(x0, c.g[i]); x1 = Math.max(x1, c.g[i]);
        [s[0][i], s[1][i], s[2][i]].forEach(function (v) { if (ok(v, ly)) { y0 = Math.min(y0, v); y1 = Math.max(y1, v); } });
      }
    });
    if (!(x0 <= x1 && y0 <= y1)) { msg.textContent = 'Nothing to draw (all solvers hidden or no positive values on a log axis).'; return; }
    if (x0 === x1) { x0 = lx ? x0 / 2 : x0 - 1; x1 = lx ? x1 * 2 : x1 + 1; }
    if (y0 === y1) { y0 = ly ? y0 / 2 : y0 - 1; y1 = ly ? y1 * 2 : y1 + 1; }
    if (!ly) { var pad = (y1 - y0) * 0.04; y0 -= pad; y1 += pad; }
    var fx = lx ? function (v) { return ML + (W - ML - MR) * (Math.log(v) - Math.log(x0)) / (Math.log(x1) - Math.log(x0)); }
                : function (v) { return ML + (W - ML - MR) * (v - x0) / (x1 - x0); };
    var fy = ly ? function (v) { return H - MB - (H - MT - MB) * (Math.log(v) - Math.log(y0)) / (Math.log(y1) - Math.log(y0)); }
                : function (v) { return H - MB - (H - MT - MB) * (v - y0) / (y1 - y0); };
    var axes = el('g', {'class': 'axes'}, svg);
    ticks(x0, x1, lx).forEach(function (v) {
      var X = fx(v).toFixed(1);
      el('line', {x1: X, x2: X, y1: MT, y2: H - MB, 'class': 'grid'}, axes);
      el('text', {x: X, y: H - MB + 16, 'text-anchor': 'middle'}, axes).textContent = fmt(v);
    });
    ticks(y0, y1, ly).forEach(function (v) {
      var Y = fy(v).toFixed(1);
      el('line', {x1: ML, x2: W - MR, y1: Y, y2: Y, 'class': 'grid'}, axes);
      el('text', {x: ML - 6, y: +Y + 4, 'text-anchor': 'end'}, axes).textContent = fmt(v);
    });
    el('rect', {x: ML, y: MT, width: W - ML - MR, height: H - MT - MB, 'class': 'frame'}, axes);
    el('text', {x: (ML + W - MR) / 2, y: H - 8, 'text-anchor': 'middle', 'class': 'label'}, axes).textContent =
        (D.labels[state.x] || state.x) + (lx ? ' (log)' : '');
    el('text', {x: 14, y: (MT + H - MB) / 2, 'text-anchor': 'middle', 'class': 'label',
                transform: 'rotate(-90 14 ' + (MT + H - MB) / 2 + ')'}, axes).textContent =
        (D.labels[c.y] || c.y) + (ly ? ' (log)' : '');
    names.forEach(function (n) {
      var s = c.s[n], color = D.colors[D.solvers.indexOf(n)], band = '', line = '', seg = [];
      function flush() {
        if (seg.length) {
          band += 'M' + seg.map(function (i) { return fx(c.g[i]).toFixed(1) + ',' + fy(s[2][i]).toFixed(1); }).join('L') +
                  'L' + seg.slice().reverse().map(function (i) { return fx(c.g[i]).toFixed(1) + ',' + fy(s[1][i]).toFixed(1); }).join('L') + 'Z';
        }
        seg = [];
      }
      var pen = false;
      for (var i = 0; i < c.g.length; i++) {
        var good = ok(c.g[i], lx) && ok(s[0][i], ly);
        if (good && ok(s[1][i], ly) && ok(s[2][i], ly)) seg.push(i); else flush();
        if (good) { line += (pen ? 'L' : 'M') + fx(c.g[i]).toFixed(1) + ',' + fy(s[0][i]).toFixed(1); pen = true; } else pen = false;
      }
      flush();
      el('path', {d: band || 'M0,0', fill: color, 'class': 'band', 'data-solver': n}, svg);
      var m = el('path', {d: line || 'M0,0', stroke: color, 'class': 'median', 'data-solver': n}, svg);
      el('title', {}, m).textContent = n + ' (median of ' + c.n[n] + ' runs; band: min-max)';
    });
  }
  function drawAll() { for (var i = 0; i < D.problems.length; i++) draw(i); }
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
  drawAll();
  document.body.setAttribute('data-render-ms', (performance.now() - t0).toFixed(1));  // script: parse + draw
  document.body.setAttribute('data-ready-ms', performance.now().toFixed(1));  // since navigation start
})();
)JS";

const char* kStyle = R"CSS(
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:20px 28px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 6px} h2{font-size:16px;margin:26px 0 6px;border-bottom:1px solid #ddd} h3{font-size:14px;margin:14px 0 4px}
#controls{position:sticky;top:0;background:#fafafa;border:1px solid #ddd;padding:8px 10px;z-index:2}
#controls label{margin-right:14px;white-space:nowrap} select{margin-left:4px}
.swatch{display:inline-block;width:14px;height:4px;margin:0 4px 3px 3px;vertical-align:middle}
svg.plot{width:100%;max-width:900px;height:auto;display:block}
svg .grid{stroke:#e6e6e6} svg .frame{fill:none;stroke:#999} svg text{font-size:11px;fill:#333} svg .label{font-size:12px}
svg .band{opacity:.16;stroke:none} svg .median{fill:none;stroke-width:1.8}
table{border-collapse:collapse;margin:4px 0 10px;font-size:12.5px} td,th{border:1px solid #ddd;padding:2px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3} .note{color:#666;font-size:12px;margin:2px 0} .warn{color:#a40}
.st-done{color:#262} .st-budget{color:#555} .st-timeout{color:#b60} .st-failed,.st-diverged{color:#c00;font-weight:bold}
.msg{color:#a40}
)CSS";

}  // namespace

std::string render_html(const RunSet& set, const json& tables, const HtmlOptions& html, const Options& options) {
  json data;
  data["solvers"] = set.solvers;
  json colors = json::array();
  for (std::size_t i = 0; i < set.solvers.size(); ++i) colors.push_back(kPalette[i % 10]);
  data["colors"] = colors;
  data["oracle_cost"] = options.oracle_cost;

  // axes present in the runs
  std::set<std::string> columns;
  for (const auto& r : set.runs)
    for (const auto& [name, v] : r.curve) columns.insert(name);
  std::vector<std::string> xs;
  for (const auto& x : kXAxes)
    if (columns.count(x)) xs.push_back(x);
  if (options.oracle_cost != 1.0 && columns.count("time")) xs.push_back("time_recorded");
  std::vector<std::string> ys;
  bool any_dual = false;
  for (const auto& p : set.problems) any_dual = any_dual || p.has_dual;
  if (any_dual) ys = {"primal_subopt", "dual_subopt"};
  ys.push_back("rel_objective");
  for (const auto& y : {"gap", "primal", "dual", "train_error", "test_error"})
    if (columns.count(y)) ys.push_back(y);
  for (const auto& c : columns)
    if (std::find(ys.begin(), ys.end(), c) == ys.end() && std::find(kXAxes.begin(), kXAxes.end(), c) == kXAxes.end())
      ys.push_back(c);
  json labels = json::object();
  for (const auto& k : xs) labels[k] = axis_label(k, options.oracle_cost);
  for (const auto& k : ys) labels[k] = axis_label(k, options.oracle_cost);
  data["xs"] = xs;
  data["ys"] = ys;
  data["labels"] = labels;
  data["x"] = std::find(xs.begin(), xs.end(), html.x) != xs.end() ? html.x : (xs.empty() ? "" : xs.front());
  data["y"] = std::find(ys.begin(), ys.end(), html.y) != ys.end() ? html.y : (ys.empty() ? "" : ys.front());

  json problems = json::array();
  for (const auto& p : set.problems) {
    json jp = {{"label", p.label}, {"approximate", p.approximate}, {"has_dual", p.has_dual}};
    json curves = json::object();
    for (const auto& x : xs)
      for (const auto& y : ys) {
        Curves c = make_curves(set, p, x, y, options);
        if (c.bands.empty()) continue;
        json jc = {{"g", rounded(c.grid)}, {"lx", c.log_x}, {"ly", c.log_y}, {"y", c.y}};
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

  std::string payload = data.dump();
  // "</" would end the <script> element early; "\/" is the same string in JSON.
  for (std::size_t pos = 0; (pos = payload.find("</", pos)) != std::string::npos; pos += 3) payload.replace(pos, 2, "<\\/");

  std::string h;
  h.reserve(payload.size() + 64 * 1024);
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       "<title>" + esc(html.title) + "</title><style>" + kStyle + "</style></head><body>\n";
  h += "<h1>" + esc(html.title) + "</h1>";
  h += fmt::format("<p class=\"note\">{} runs, {} problems, {} solvers. Suboptimality is measured against the best "
                   "bounds over all runs of a problem (primal: P - best certified dual; dual: best primal - D). "
                   "Lines: median over repeats, bands: min-max; a run contributes until its last checkpoint.",
                   set.runs.size(), set.problems.size(), set.solvers.size());
  if (options.oracle_cost != 1.0)
    h += fmt::format(" <b>Assumption: each exact oracle call costs {:g}x its recorded time</b> (time axes replayed "
                     "from the recorded oracle time; 'solver time (as recorded)' shows the measurement).",
                     options.oracle_cost);
  h += "</p>\n";
  h += "<div id=\"controls\"><label>x <select id=\"sel-x\"></select></label>"
       "<label>y <select id=\"sel-y\"></select></label>"
       "<label>x scale <select id=\"sel-logx\"><option value=\"auto\">auto</option><option value=\"linear\">linear"
       "</option><option value=\"log\">log</option></select></label>"
       "<label>y scale <select id=\"sel-logy\"><option value=\"auto\">auto</option><option value=\"linear\">linear"
       "</option><option value=\"log\">log</option></select></label>"
       "<span id=\"solvers\"></span></div>\n";
  // per problem: plot then tables
  std::string tables_part = tables_html(tables, set);
  for (std::size_t pi = 0; pi < set.problems.size(); ++pi) {
    const Problem& p = set.problems[pi];
    h += fmt::format("<section class=\"problem\" id=\"problem-{}\"><h2>Problem {}: {}{}</h2>", pi, pi + 1, esc(p.label),
                     p.approximate ? " <span class=\"warn\">[approximate]</span>" : "");
    h += fmt::format("<p class=\"msg\" id=\"msg-{}\"></p><svg class=\"plot\" id=\"plot-{}\" viewBox=\"0 0 900 400\" "
                     "xmlns=\"http://www.w3.org/2000/svg\"></svg>",
                     pi, pi);
    // each problem's tables follow its plot
    const std::string open = fmt::format("<div class=\"tables\" data-problem=\"{}\">", pi);
    auto a = tables_part.find(open);
    auto b = tables_part.find("<div class=\"tables\" data-problem=", a + open.size());
    if (a != std::string::npos) h += tables_part.substr(a, b == std::string::npos ? std::string::npos : b - a);
    h += "</section>\n";
  }
  h += "<h2>Runs</h2>" + runs_html(tables, set);
  h += "\n<script type=\"application/json\" id=\"dualgap-data\">" + payload + "</script>\n<script>" + kScript +
       "</script>\n</body></html>\n";
  return h;
}

}  // namespace dualgap::compare
