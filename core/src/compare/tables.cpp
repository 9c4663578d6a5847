// Epsilon tables with censoring, final values, status counts; text formatting.
//
// A run that never reaches eps is not dropped: it contributes a censored value "> budget",
// its last recorded x. Order statistics are bounded from both sides (see censored_stats), so a
// median that falls on them is reported as "> its lower bound" (true: more
// than half the runs lie above that budget).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "compare/model.hpp"
#include "compare/table_format.hpp"

using nlohmann::json;

namespace dualgap::compare {

namespace {

json split_bounds_json(const Problem& p) {
  json out = json::array();
  for (const auto& [upper, lower] : p.split_bounds) out.push_back({{"best_upper", json_number(upper)}, {"best_lower", json_number(lower)}});
  return out;
}

std::string bound_text(const json& v) {
  return v.is_number() ? fmt::format("{:.10g}", v.get<double>()) : std::string("none");
}

json cell_json(const CensoredStats& s) {
  return {{"total", s.total},           {"reached", s.reached}, {"median", json_number(s.median)},
          {"median_censored", s.median_censored}, {"min", json_number(s.min)}, {"max", json_number(s.max)},
          {"max_censored", s.max_censored}};
}

// The registry's reach axes and final-value columns (series.cpp marks them): y quantities
// first, then the x quantities, each in registry order.
std::vector<std::string> registered(bool SeriesDef::*flag) {
  std::vector<std::string> out;
  for (auto role : {SeriesDef::Role::y, SeriesDef::Role::x})
    for (const auto& d : series_registry())
      if (d.role == role && d.*flag) out.push_back(d.name);
  return out;
}

}  // namespace

std::string format_number(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a >= 1e5 || a < 1e-3) return fmt::format("{:.3g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

Hit first_reach(const std::vector<double>& x, const std::vector<double>& y, double eps) {
  Hit h;
  const std::size_t n = std::min(x.size(), y.size());
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::isfinite(x[k])) continue;
    h.value = x[k];  // budget so far
    if (std::isfinite(y[k]) && y[k] <= eps) {
      h.reached = true;
      return h;
    }
  }
  if (!std::isfinite(h.value)) h.value = 0;  // nothing recorded: censored at zero budget
  return h;
}

CensoredStats censored_stats(const std::vector<Hit>& hits) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  CensoredStats s;
  s.total = static_cast<int>(hits.size());
  if (hits.empty()) return s;
  // A censored value v means "more than v", a reached one is exact. The k-th order statistic
  // lies between the k-th smallest lower bound (every value as given) and the k-th smallest
  // upper bound (censored = +inf); a statistic is exact when the two agree, otherwise it is
  // reported as "more than" its lower bound. (Runs with different budgets can be censored below
  // a value another run reached, so censored runs are not simply "after" the reached ones.)
  std::vector<double> lower, upper;
  std::vector<double> reached;
  for (const auto& h : hits) {
    lower.push_back(h.value);
    upper.push_back(h.reached ? h.value : kInf);
    if (h.reached) reached.push_back(h.value);
  }
  std::sort(lower.begin(), lower.end());
  std::sort(upper.begin(), upper.end());
  s.reached = static_cast<int>(reached.size());
  if (!reached.empty()) s.min = *std::min_element(reached.begin(), reached.end());
  s.max = lower.back();
  s.max_censored = upper.back() == kInf;
  const std::size_t n = hits.size(), m = n / 2;
  const double lo = n % 2 == 1 ? lower[m] : 0.5 * (lower[m - 1] + lower[m]);
  const double hi = n % 2 == 1 ? upper[m] : 0.5 * (upper[m - 1] + upper[m]);
  s.median = lo;
  s.median_censored = hi != lo;
  return s;
}

std::vector<double> measured_series(const RunSet& set, const Run& run, const std::string& y, const Options& options,
                                    bool relative) {
  std::vector<double> v = series(set, run, y, options.oracle_cost);
  if (relative) {
    const double scale = std::abs(run.best_lower);
    for (double& x : v) x /= scale;
  }
  return v;
}

bool relative_levels(const RunSet& set, const Problem& p, const std::string& y, const Options& options) {
  if (options.levels != Options::Levels::relative) return false;
  const SeriesDef* d = find_series(y);
  if (!d || !d->scale_by_dual_bound) return false;
  for (std::size_t r : p.runs) {
    const double b = set.runs[r].best_lower;
    if (!std::isfinite(b) || b == 0) return false;  // no usable D_best: absolute levels
  }
  return true;
}

Measure measure_of(const RunSet& set, const Problem& p, const std::string& y, const Options& options) {
  Measure m;
  m.y = resolve_y(p, y);
  if (m.y.empty()) return m;
  m.relative = relative_levels(set, p, m.y, options);
  m.label = measured_label(m.y, m.relative, options.oracle_cost);
  return m;
}

namespace {

// The final-value columns of a problem: the registered ones, and first the measured y `ry`
// when it is not one of them; each with what measure_of says it measures on the problem.
std::vector<std::pair<std::string, Measure>> final_measures(const RunSet& set, const Problem& p, const std::string& ry,
                                                            const Options& options) {
  std::vector<std::string> names = registered(&SeriesDef::final_value);
  if (!ry.empty() && std::find(names.begin(), names.end(), ry) == names.end()) names.insert(names.begin(), ry);
  std::vector<std::pair<std::string, Measure>> out;
  for (auto& name : names) out.emplace_back(name, measure_of(set, p, name, options));
  return out;
}

// The final value of a column for a run, at the levels its problem measures it: a final value
// and the end of the drawn line are one number.
double final_value(const RunSet& set, const Run& run, const std::pair<std::string, Measure>& column,
                   const Options& options) {
  const auto& [name, m] = column;
  if (m.y != name) return last_finite(series(set, run, name, options.oracle_cost));
  return last_finite(measured_series(set, run, name, options, m.relative));
}

}  // namespace

bool run_is_na(const Run& run, const std::string& y, const std::vector<double>& ys) {
  // A run that recorded checkpoints but no objective (e.g. AdaBoost without a loss) cannot be
  // measured on an objective-based series: n/a, not "did not get there". A run with no
  // checkpoint at all (failed at once) stays censored at zero budget.
  const SeriesDef* d = find_series(y);
  if (run.checkpoints() == 0) return false;
  if (d && d->needs_objective && !run.has_objective()) return true;
  return std::none_of(ys.begin(), ys.end(), [](double v) { return std::isfinite(v); });
}

json compute_tables(const RunSet& set, const std::string& y, const std::vector<double>& eps, const Options& options) {
  json out;
  out["schema"] = "dualgap.compare/1";
  out["y"] = y;
  out["eps"] = eps;
  out["oracle_cost"] = options.oracle_cost;
  out["solvers"] = set.solvers;
  out["problems"] = json::array();
  // What each final-value column measures, once per problem (for its table and for every run).
  std::vector<std::vector<std::pair<std::string, Measure>>> finals_of;
  for (const Problem& p : set.problems) finals_of.push_back(final_measures(set, p, resolve_y(p, y), options));
  for (std::size_t pi = 0; pi < set.problems.size(); ++pi) {
    const Problem& p = set.problems[pi];
    const Measure measure = measure_of(set, p, y, options);
    const std::string& ry = measure.y;
    const bool relative = measure.relative;
    const std::string y_label = ry.empty() ? std::string("(not available)") : measure.label;
    json jp = {{"key", p.key},
               {"label", p.label},
               {"objective_key", p.objective_key},
               {"note", p.note},
               {"approximate", p.approximate},
               {"has_dual", p.has_dual},
               {"best_upper", json_number(p.best_upper)},
               {"best_lower", json_number(p.best_lower)},
               {"split_bounds", split_bounds_json(p)},
               {"y", ry},
               {"levels", relative ? "relative" : "absolute"},
               {"y_label", y_label},
               {"runs", p.runs.size()},
               {"solvers", json::array()}};
    std::vector<std::string> axes;
    for (const auto& a : registered(&SeriesDef::reach_axis))
      for (std::size_t r : p.runs)
        if (set.runs[r].column(a)) {
          axes.push_back(a);
          break;
        }
    jp["reach_axes"] = axes;
    // The final-value columns divided by |D_best| (the same levels as the figures and the
    // epsilon table): named in the heading of the final values.
    const auto& finals = finals_of[pi];
    json final_relative = json::array(), final_order = json::array();
    for (const auto& [name, m] : finals) {
      final_order.push_back(name);
      if (m.relative) final_relative.push_back(name);
    }
    jp["final_relative"] = final_relative;
    for (const auto& solver : p.solvers) {
      std::vector<const Run*> runs;
      for (std::size_t r : p.runs)
        if (set.runs[r].solver == solver) runs.push_back(&set.runs[r]);
      json js = {{"solver", solver}, {"runs", runs.size()}};
      std::map<std::string, int> status;
      for (const Run* r : runs) status[r->status]++;
      js["status"] = status;
      js["failed"] = status.count("failed") ? status["failed"] : 0;
      js["timeouts"] = status.count("timeout") ? status["timeout"] : 0;
      js["diverged"] = status.count("diverged") ? status["diverged"] : 0;
      // time / passes / oracle calls to reach each eps, over the runs that have the measure
      std::vector<const Run*> measured;
      std::vector<std::vector<double>> ys;
      int na = 0;
      for (const Run* r : runs) {
        std::vector<double> v = ry.empty() ? std::vector<double>{} : measured_series(set, *r, ry, options, relative);
        if (ry.empty() || run_is_na(*r, ry, v)) {
          ++na;
          continue;
        }
        measured.push_back(r);
        ys.push_back(std::move(v));
      }
      js["na"] = na;
      std::map<std::string, std::vector<std::vector<double>>> xs;
      for (const auto& a : axes)
        for (const Run* r : measured) xs[a].push_back(series(set, *r, a, options.oracle_cost));
      json reach = json::array();
      if (!ry.empty())
        for (double e : eps) {
          json je = {{"eps", e}};
          for (const auto& a : axes) {
            std::vector<Hit> hits;
            for (std::size_t i = 0; i < measured.size(); ++i) hits.push_back(first_reach(xs[a][i], ys[i], e));
            json c = cell_json(censored_stats(hits));
            c["na"] = na;
            je[a] = std::move(c);
          }
          reach.push_back(std::move(je));
        }
      js["reach"] = std::move(reach);
      // final values: median and range of each run's last recorded value
      json fin = json::object();
      for (const auto& column : finals) {
        std::vector<double> v;
        for (const Run* r : runs) {
          double f = final_value(set, *r, column, options);
          if (std::isfinite(f)) v.push_back(f);
        }
        if (v.empty()) continue;
        auto [mn, mx] = std::minmax_element(v.begin(), v.end());
        fin[column.first] = {{"median", json_number(median_of(v))}, {"min", *mn}, {"max", *mx}, {"n", v.size()}};
      }
      js["final"] = std::move(fin);
      js["final_order"] = final_order;  // "final" is a JSON object (sorted keys): the display order
      jp["solvers"].push_back(std::move(js));
    }
    out["problems"].push_back(std::move(jp));
  }
  json runs = json::array();
  for (const Run& r : set.runs) {
    json fin = json::object();
    for (const auto& column : finals_of[r.problem]) fin[column.first] = json_number(final_value(set, r, column, options));
    runs.push_back({{"path", r.path},
                    {"experiment", r.experiment},
                    {"run_id", r.run_id},
                    {"solver", r.solver},
                    {"solver_name", r.solver_name},
                    {"problem", r.problem},
                    {"status", r.status},
                    {"message", r.message},
                    {"approximate", r.approximate},
                    {"has_objective", r.has_objective()},
                    {"checkpoints", r.checkpoints()},
                    {"final", std::move(fin)}});
  }
  out["runs"] = std::move(runs);
  out["warnings"] = set.warnings;
  return out;
}

std::string format_cell(const json& c) {
  auto get = [&](const char* k) { return c.at(k).is_number() ? c.at(k).get<double>() : kNaN; };
  const int total = c.at("total").get<int>(), reached = c.at("reached").get<int>();
  const int na = c.value("na", 0);
  if (total == 0) return na > 0 ? "n/a" : "-";
  const std::string na_note = na > 0 ? fmt::format(" ({} n/a)", na) : "";
  std::string med = (c.at("median_censored").get<bool>() ? ">" : "") + format_number(get("median"));
  std::string lo = reached > 0 ? format_number(get("min")) : "-";
  std::string hi = (c.at("max_censored").get<bool>() ? ">" : "") + format_number(get("max"));
  if (total == 1) return fmt::format("{} {}/{}{}", med, reached, total, na_note);
  return fmt::format("{} [{}, {}] {}/{}{}", med, lo, hi, reached, total, na_note);
}

std::string bounds_sentence(const json& p, bool html) {
  const auto b = [&](const json& v) { return html ? "<b>" + bound_text(v) + "</b>" : bound_text(v); };
  const json& splits = p["split_bounds"];
  if (splits.size() <= 1)
    return fmt::format("{}est upper bound (lowest primal) {}, best lower bound (highest certified dual) {}.",
                       html ? "B" : "b", b(p["best_upper"]), b(p["best_lower"]));
  std::string s = fmt::format(
      "{} data splits (the repeats drew different data): each run's suboptimality is measured against its own "
      "split's bounds; per split, lowest primal / highest certified dual:",
      splits.size());
  for (std::size_t i = 0; i < splits.size(); ++i)
    s += fmt::format("{} {} / {}", i == 0 ? "" : ";", b(splits[i]["best_upper"]), b(splits[i]["best_lower"]));
  return s + ".";
}

std::string final_heading(const json& p) {
  std::string names;
  for (const auto& n : p.value("final_relative", json::array())) names += (names.empty() ? "" : ", ") + n.get<std::string>();
  if (names.empty()) return "Final values: median [min, max]";
  return "Final values (relative levels: " + names + " divided by |D_best|): median [min, max]";
}

std::vector<std::string> final_columns(const json& p) {
  // every solver has the same final_order; keep the names some solver has a value for
  std::vector<std::string> cols;
  if (p["solvers"].empty()) return cols;
  for (const auto& name : p["solvers"][0].value("final_order", std::vector<std::string>{}))
    for (const auto& js : p["solvers"])
      if (js["final"].contains(name)) {
        cols.push_back(name);
        break;
      }
  return cols;
}

std::string format_tables(const json& t, TableFormat format) {
  std::string s;
  const std::string in = format == TableFormat::text ? "  " : "";
  const double k = t.value("oracle_cost", 1.0);
  auto line = [&](const std::string& text) { s += render_line(text, format, in); };
  for (std::size_t pi = 0; pi < t["problems"].size(); ++pi) {
    const json& p = t["problems"][pi];
    s += render_heading(fmt::format("Problem {}/{}: {}  ({} runs)", pi + 1, t["problems"].size(),
                                    p["label"].get<std::string>(), p["runs"].get<std::size_t>()),
                        format);
    line(bounds_sentence(p, false));
    if (!p.value("note", std::string()).empty()) line(p["note"].get<std::string>());
    if (!p["has_dual"].get<bool>()) line("no certified dual: suboptimality is the relative objective (F - F_best) / |F_best|");
    if (p["approximate"].get<bool>())
      line("WARNING: approximate primal/dual (approximate oracle, e.g. Potts alpha-expansion): "
           "bounds are not certified, gaps may be negative");
    if (k != 1.0) line(fmt::format("time replayed as if each exact oracle call cost x{:g} (from recorded oracle time)", k));
    if (format == TableFormat::text) s += "\n";

    Table status{{"solver", "runs", "status"}, {}};
    for (const auto& js : p["solvers"]) {
      std::string st;
      for (auto& [name, n] : js["status"].items()) st += fmt::format("{}{} {}", st.empty() ? "" : ", ", name, n.get<int>());
      status.rows.push_back({js["solver"].get<std::string>(), std::to_string(js["runs"].get<int>()), st});
    }
    s += render_heading("Runs and status", format, in) + render_table(status, format, in + "  ");
    if (format == TableFormat::text) s += "\n";

    const std::string y = p["y"].get<std::string>();
    if (!y.empty() && !t["eps"].empty()) {
      s += render_heading(fmt::format("To reach {} <= eps ({} levels)", p["y_label"].get<std::string>(),
                                      p.value("levels", std::string("absolute"))),
                          format, in);
      line("median [min, max] reached/runs; '>' = censored at the run's budget; n/a = the run has no such measure");
      Table reach{{"solver", "measure"}, {}};
      for (const auto& e : t["eps"]) reach.header.push_back("eps=" + format_number(e.get<double>()));
      for (const auto& js : p["solvers"])
        for (const auto& a : p["reach_axes"]) {
          const std::string axis = a.get<std::string>();
          std::vector<std::string> row = {js["solver"].get<std::string>(), axis};
          for (const auto& je : js["reach"]) row.push_back(format_cell(je[axis]));
          reach.rows.push_back(std::move(row));
        }
      s += render_table(reach, format, in + "  ");
      if (format == TableFormat::text) s += "\n";
    }
    const std::vector<std::string> cols = final_columns(p);
    Table fin{{"solver"}, {}};
    fin.header.insert(fin.header.end(), cols.begin(), cols.end());
    for (const auto& js : p["solvers"]) {
      std::vector<std::string> row = {js["solver"].get<std::string>()};
      for (const auto& c : cols) {
        std::string cell = js.value("na", 0) == js["runs"].get<int>() ? "n/a" : "-";
        if (js["final"].contains(c)) {
          const json& f = js["final"][c];
          cell = fmt::format("{} [{}, {}]", format_number(f["median"].is_number() ? f["median"].get<double>() : kNaN),
                             format_number(f["min"].get<double>()), format_number(f["max"].get<double>()));
        }
        row.push_back(cell);
      }
      fin.rows.push_back(std::move(row));
    }
    s += render_heading(final_heading(p), format, in) + render_table(fin, format, in + "  ");
    s += "\n";
  }
  int bad = 0;
  for (const auto& r : t["runs"]) {
    const std::string st = r["status"].get<std::string>();
    if (st == "failed" || st == "timeout" || st == "diverged" || st == "interrupted") {
      if (bad++ == 0) s += render_heading("Runs that did not finish normally:", format);
      s += render_line(fmt::format("{:<9} {} ({}): {}", st, r["run_id"].get<std::string>(),
                                   r["solver"].get<std::string>(), r["message"].get<std::string>()),
                       format, "  ");
    }
  }
  for (const auto& w : t["warnings"]) s += render_line("warning: " + w.get<std::string>(), format);
  return s;
}

std::string format_text(const json& t) { return format_tables(t, TableFormat::text); }

}  // namespace dualgap::compare
