// Dolan-More performance profiles and More-Wild data profiles over the problems of a result
// set, with a summary ranking solvers by problems solved and the geometric mean of their ratio.
//
// cost(p, s)  = median over solver s's repeats on problem p of the measure (time, passes, oracle
//               calls: --x) at which the measured suboptimality first reaches the tolerance;
//               +inf when the median is not reached (censored) or s has no run on p.
// ratio(p, s) = cost(p, s) / min_s' cost(p, s')            (performance profile: Dolan & More 2002)
// rho_s(tau)  = #{p : ratio(p, s) <= tau} / #problems
// d_s(alpha)  = #{p : cost(p, s) <= alpha} / #problems      (data profile: More & Wild 2009, with
//               the measure itself as the budget unit)
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compare/model.hpp"

using nlohmann::json;

namespace dualgap::compare {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

double profile_fraction(const std::vector<double>& values, std::size_t problems, double threshold) {
  if (problems == 0) return kNaN;
  std::size_t n = 0;
  for (double v : values)
    if (v <= threshold) ++n;
  return static_cast<double>(n) / static_cast<double>(problems);
}

Profile compute_profile(const RunSet& set, const ProfileOptions& po, const Options& options) {
  Profile pr;
  pr.measure = po.measure;
  pr.y = po.y;
  pr.tol = po.tol;
  pr.solvers = set.solvers;
  const std::size_t S = set.solvers.size();
  for (const Problem& p : set.problems) {
    const Measure m = measure_of(set, p, po.y, options);
    const std::string& ry = m.y;
    const bool relative = m.relative;
    pr.problems.push_back(p.label);
    pr.levels.push_back(ry.empty() ? "n/a" : m.label);
    pr.relative.push_back(relative);
    std::vector<double> costs(S, kInf);
    for (std::size_t s = 0; s < S; ++s) {
      if (ry.empty()) continue;
      std::vector<Hit> hits;
      for (std::size_t r : p.runs) {
        const Run& run = set.runs[r];
        if (run.solver != set.solvers[s]) continue;
        const auto ys = measured_series(set, run, ry, options, relative);
        if (run_is_na(run, ry, ys)) continue;
        hits.push_back(first_reach(series(set, run, po.measure, options.oracle_cost), ys, po.tol));
      }
      if (hits.empty()) continue;
      const CensoredStats st = censored_stats(hits);
      if (st.reached > 0 && !st.median_censored && std::isfinite(st.median)) costs[s] = st.median;
    }
    pr.cost.push_back(std::move(costs));
  }
  pr.ratio.assign(pr.cost.size(), std::vector<double>(S, kInf));
  for (std::size_t p = 0; p < pr.cost.size(); ++p) {
    const double best = *std::min_element(pr.cost[p].begin(), pr.cost[p].end());
    if (!std::isfinite(best)) continue;
    for (std::size_t s = 0; s < S; ++s) {
      const double c = pr.cost[p][s];
      if (!std::isfinite(c)) continue;
      // A solver that is done at zero cost is the best; any positive cost against it is
      // an unbounded ratio.
      pr.ratio[p][s] = c == best ? 1.0 : (best > 0 ? c / best : kInf);
    }
  }
  pr.solved.assign(S, 0);
  pr.geomean_ratio.assign(S, kNaN);
  for (std::size_t s = 0; s < S; ++s) {
    double log_sum = 0;
    for (std::size_t p = 0; p < pr.ratio.size(); ++p)
      if (std::isfinite(pr.ratio[p][s])) {
        ++pr.solved[s];
        log_sum += std::log(pr.ratio[p][s]);
      }
    if (pr.solved[s] > 0) pr.geomean_ratio[s] = std::exp(log_sum / pr.solved[s]);
  }
  for (std::size_t s = 0; s < S; ++s)
    if (pr.solved[s] > 0) pr.ranking.push_back(s);
  std::stable_sort(pr.ranking.begin(), pr.ranking.end(), [&](std::size_t a, std::size_t b) {
    if (pr.solved[a] != pr.solved[b]) return pr.solved[a] > pr.solved[b];
    const double ga = std::isfinite(pr.geomean_ratio[a]) ? pr.geomean_ratio[a] : kInf;
    const double gb = std::isfinite(pr.geomean_ratio[b]) ? pr.geomean_ratio[b] : kInf;
    return ga < gb;
  });
  return pr;
}

std::string Profile::solved_text() const {
  std::vector<std::string> labels;
  for (const auto& l : levels)
    if (l != "n/a" && std::find(labels.begin(), labels.end(), l) == labels.end()) labels.push_back(l);
  if (labels.empty()) labels.push_back(y);
  const auto n_relative = std::count(relative.begin(), relative.end(), 1);
  const char* kind = n_relative == 0 ? "absolute" : n_relative == static_cast<long>(relative.size())
                                                        ? "relative"
                                                        : "relative where a certified bound exists, else absolute";
  return fmt::format("{} <= {:g} ({} levels)", fmt::join(labels, "; "), tol, kind);
}

namespace {
std::string problems_text(std::size_t n) { return fmt::format("{} problem{}", n, n == 1 ? "" : "s"); }
}  // namespace

std::vector<double> Profile::ratios_of(std::size_t s) const {
  std::vector<double> v;
  for (const auto& row : ratio) v.push_back(row[s]);
  return v;
}

std::vector<double> Profile::costs_of(std::size_t s) const {
  std::vector<double> v;
  for (const auto& row : cost) v.push_back(row[s]);
  return v;
}

namespace {

// The breakpoints of a step function counting values <= t: the sorted distinct finite values,
// with the fraction reached at each.
std::pair<std::vector<double>, std::vector<double>> steps(std::vector<double> values, std::size_t problems) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<double> fractions;
  for (double v : values) fractions.push_back(profile_fraction(values, problems, v));
  return {values, fractions};
}

}  // namespace

json profile_json(const Profile& pr) {
  json out = {{"measure", pr.measure}, {"y", pr.y}, {"tol", pr.tol}, {"problems", pr.problems}, {"levels", pr.levels},
              {"solvers", json::array()}};
  for (std::size_t s = 0; s < pr.solvers.size(); ++s) {
    json cost = json::array(), ratio = json::array();
    for (std::size_t p = 0; p < pr.problems.size(); ++p) {
      cost.push_back(json_number(pr.cost[p][s]));
      ratio.push_back(json_number(pr.ratio[p][s]));
    }
    auto [tau, rho] = steps(pr.ratios_of(s), pr.problems.size());
    auto [alpha, d] = steps(pr.costs_of(s), pr.problems.size());
    // rho at each breakpoint counts all ratios <= it (ties included)
    for (std::size_t i = 0; i < tau.size(); ++i) rho[i] = profile_fraction(pr.ratios_of(s), pr.problems.size(), tau[i]);
    for (std::size_t i = 0; i < alpha.size(); ++i) d[i] = profile_fraction(pr.costs_of(s), pr.problems.size(), alpha[i]);
    out["solvers"].push_back({{"solver", pr.solvers[s]},
                              {"cost", cost},
                              {"ratio", ratio},
                              {"solved", pr.solved[s]},
                              {"geomean_ratio", json_number(pr.geomean_ratio[s])},
                              {"performance_profile", {{"tau", tau}, {"rho", rho}}},
                              {"data_profile", {{"alpha", alpha}, {"d", d}}}});
  }
  json rank = json::array();
  for (std::size_t s : pr.ranking) rank.push_back(pr.solvers[s]);
  out["ranking"] = rank;
  return out;
}

std::vector<std::string> Profile::notes() const {
  const std::size_t n = problems.size();
  std::vector<std::string> out = {fmt::format(
      "{} problem{}; solved: {} (median over repeats of the first {} at which it holds); unsolved problems never count.",
      n, n == 1 ? "" : "s", solved_text(), measure)};
  std::vector<std::string> unsolved;
  for (std::size_t s = 0; s < solvers.size(); ++s)
    if (solved[s] == 0) unsolved.push_back(solvers[s]);
  // A solver that solved nothing is a line at 0 in both panels, and several such lines lie on
  // top of each other: they are named in the caption instead.
  if (!unsolved.empty()) out.push_back(fmt::format("{} solved no problem (not drawn).", fmt::join(unsolved, ", ")));
  return out;
}

json profile_panels(const Profile& pr) {
  json perf = {{"title", "performance profile"},
               {"xlabel", "performance ratio tau (" + pr.measure + " / best solver's)"},
               {"ylabel", "fraction of problems solved"},
               {"log_x", true},
               {"log_base_x", 2},
               {"log_y", false},
               {"steps", true},
               {"ylim", {0, 1.02}},
               {"series", json::array()}};
  json data = perf;
  data["title"] = "data profile";
  data["xlabel"] = axis_label(pr.measure);
  data["log_base_x"] = 10;
  const json j = profile_json(pr);
  double max_tau = 2, max_alpha = 0, min_alpha = kInf;
  for (const auto& s : j["solvers"]) {
    for (double t : s["performance_profile"]["tau"]) max_tau = std::max(max_tau, t * 1.5);
    for (double a : s["data_profile"]["alpha"]) {
      max_alpha = std::max(max_alpha, a * 1.5);
      if (a > 0) min_alpha = std::min(min_alpha, a);
    }
  }
  if (!std::isfinite(min_alpha)) min_alpha = 1;
  if (!(max_alpha > min_alpha)) max_alpha = min_alpha * 10;
  for (const auto& s : j["solvers"]) {
    if (s["solved"].get<int>() == 0) continue;  // named by notes()
    // start at (1, 0) / (min, 0) and hold the last value to the right end, as steps
    json tx = {1.0}, ty = {0.0}, ax = {min_alpha / 1.5}, ay = {0.0};
    const auto& pp = s["performance_profile"];
    for (std::size_t i = 0; i < pp["tau"].size(); ++i) {
      if (pp["tau"][i].get<double>() == 1.0) ty[0] = pp["rho"][i];
      else {
        tx.push_back(pp["tau"][i]);
        ty.push_back(pp["rho"][i]);
      }
    }
    tx.push_back(max_tau);
    ty.push_back(ty.back());
    const auto& dp = s["data_profile"];
    for (std::size_t i = 0; i < dp["alpha"].size(); ++i) {
      ax.push_back(std::max(dp["alpha"][i].get<double>(), min_alpha / 1.5));
      ay.push_back(dp["d"][i]);
    }
    ax.push_back(max_alpha);
    ay.push_back(ay.back());
    perf["series"].push_back({{"label", s["solver"]}, {"x", tx}, {"median", ty}, {"lo", nullptr}, {"hi", nullptr}});
    data["series"].push_back({{"label", s["solver"]}, {"x", ax}, {"median", ay}, {"lo", nullptr}, {"hi", nullptr}});
  }
  return json::array({perf, data});
}

Table profile_table(const Profile& pr) {
  Table t{{"rank", "solver", "solved", "of", "geomean ratio", "median cost (solved)"}, {}};
  // the ranked solvers, then those that solved nothing, unranked ("-"), in series order
  std::vector<std::size_t> order = pr.ranking;
  for (std::size_t s = 0; s < pr.solvers.size(); ++s)
    if (std::find(order.begin(), order.end(), s) == order.end()) order.push_back(s);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::size_t s = order[i];
    std::vector<double> solved;
    for (std::size_t p = 0; p < pr.problems.size(); ++p)
      if (std::isfinite(pr.cost[p][s])) solved.push_back(pr.cost[p][s]);
    t.rows.push_back({i < pr.ranking.size() ? std::to_string(i + 1) : "-", pr.solvers[s], std::to_string(pr.solved[s]),
                      std::to_string(pr.problems.size()), format_number(pr.geomean_ratio[s]),
                      format_number(median_of(solved))});
  }
  return t;
}

std::string format_profile(const Profile& pr, TableFormat format) {
  const std::size_t n = pr.problems.size();
  std::string s = render_heading(
      pr.ranking.empty()
          ? fmt::format("Performance profile summary: no solver solved {} ({} to reach {}): nothing is ranked",
                        n == 1 ? std::string("the problem") : fmt::format("any of the {} problems", n), pr.measure,
                        pr.solved_text())
          : fmt::format("Performance profile summary: {} to reach {} over {}", pr.measure, pr.solved_text(),
                        problems_text(n)),
      format);
  s += render_line(
      "cost = median over repeats of the first " + pr.measure +
          " at which the measured value reaches the tolerance; ratio = cost / best cost on the problem; geomean over "
          "the problems the solver solved; a solver that solved none has no rank (-)",
      format);
  return s + render_table(profile_table(pr), format, format == TableFormat::text ? "  " : "") + "\n";
}

}  // namespace dualgap::compare
