// Derived series (suboptimality against the problem's best bounds, oracle-cost replay),
// common grids and median/min-max bands of repeats.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "compare/model.hpp"

namespace dualgap::compare {

std::string resolve_y(const Problem& problem, const std::string& y) {
  if (y == "primal_subopt") return problem.has_dual ? y : "rel_objective";
  if (y == "dual_subopt") return problem.has_dual ? y : "";
  return y;
}

std::vector<double> series(const RunSet& set, const Run& run, const std::string& name, double oracle_cost) {
  const Problem& p = set.problems.at(run.problem);
  auto transform = [&](const char* column, auto f) {
    std::vector<double> out;
    if (auto* c = run.column(column)) {
      out.resize(c->size());
      std::transform(c->begin(), c->end(), out.begin(), f);
    }
    return out;
  };
  if (name == "primal_subopt") {
    if (!p.has_dual) return {};
    if (!std::isfinite(run.best_lower)) return {};
    return transform("primal", [&](double v) { return v - run.best_lower; });
  }
  if (name == "dual_subopt") {
    if (!p.has_dual) return {};
    return transform("dual", [&](double v) { return run.best_upper - v; });
  }
  if (name == "rel_objective") {
    if (!std::isfinite(run.best_upper)) return {};
    const double scale = std::max(std::abs(run.best_upper), 1e-300);
    return transform("primal", [&](double v) { return (v - run.best_upper) / scale; });
  }
  if (name == "time") {
    // time includes oracle time: replayed time = (time - oracle_time) + k * oracle_time.
    std::vector<double> out = run.column("time") ? *run.column("time") : std::vector<double>{};
    const auto* ot = run.column("oracle_time");
    if (oracle_cost != 1.0 && ot)
      for (std::size_t i = 0; i < out.size(); ++i)
        if (std::isfinite((*ot)[i])) out[i] += (oracle_cost - 1.0) * (*ot)[i];
    return out;
  }
  if (name == "time_recorded") return run.column("time") ? *run.column("time") : std::vector<double>{};
  if (name == "oracle_time") return transform("oracle_time", [&](double v) { return oracle_cost * v; });
  if (auto* c = run.column(name)) return *c;
  return {};
}

std::string axis_label(const std::string& name, double oracle_cost) {
  const std::string replay = oracle_cost != 1.0 ? fmt::format(" (exact oracle cost x{:g}, replayed)", oracle_cost) : "";
  if (name == "passes") return "passes over the data";
  if (name == "oracle_calls") return "exact oracle calls";
  if (name == "approx_oracle_calls") return "approximate oracle calls";
  if (name == "time") return "solver time [s]" + replay;
  if (name == "time_recorded") return "solver time [s] (as recorded)";
  if (name == "oracle_time") return "time in exact oracle [s]" + replay;
  if (name == "primal_subopt") return "primal suboptimality P - D_best";
  if (name == "dual_subopt") return "dual suboptimality P_best - D";
  if (name == "rel_objective") return "relative objective (F - F_best)/F_best";
  if (name == "gap") return "duality gap";
  if (name == "primal") return "primal objective";
  if (name == "dual") return "dual objective";
  if (name == "train_error") return "train error";
  if (name == "test_error") return "test error";
  std::string s = name;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

bool spans_decades(double lo, double hi) {
  return std::isfinite(lo) && std::isfinite(hi) && lo > 0 && hi / lo >= 100.0;
}

std::vector<double> make_grid(double lo, double hi, int n, bool log) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo || n < 1) return {};
  if (hi == lo || n == 1) return {hi};
  std::vector<double> g(static_cast<std::size_t>(n));
  if (log) {
    const double a = std::log(lo), b = std::log(hi);
    for (int i = 0; i < n; ++i) g[i] = std::exp(a + (b - a) * i / (n - 1));
  } else {
    for (int i = 0; i < n; ++i) g[i] = lo + (hi - lo) * i / (n - 1);
  }
  g.front() = lo;
  g.back() = hi;
  return g;
}

std::vector<double> resample_step(const std::vector<double>& x, const std::vector<double>& y,
                                  const std::vector<double>& grid) {
  std::vector<double> out(grid.size(), kNaN);
  std::vector<std::size_t> valid;  // checkpoints with both x and y
  for (std::size_t k = 0; k < std::min(x.size(), y.size()); ++k)
    if (std::isfinite(x[k]) && std::isfinite(y[k])) valid.push_back(k);
  if (valid.empty()) return out;
  const double x_begin = x[valid.front()], x_end = x[valid.back()];
  std::size_t j = 0;  // valid[j] is the next checkpoint not yet passed
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const double g = grid[i];
    if (g < x_begin || g > x_end) continue;
    while (j < valid.size() && x[valid[j]] <= g) ++j;
    out[i] = y[valid[j - 1]];  // j >= 1 because g >= x_begin
  }
  return out;
}

double median_of(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double a) { return !std::isfinite(a); }), v.end());
  if (v.empty()) return kNaN;
  const std::size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + m, v.end());
  if (v.size() % 2 == 1) return v[m];
  const double upper = v[m];
  const double lower = *std::max_element(v.begin(), v.begin() + m);
  return 0.5 * (lower + upper);
}

Curves make_curves(const RunSet& set, const Problem& problem, const std::string& x, const std::string& y_in,
                   const Options& options) {
  Curves c;
  c.x = x;
  c.y = resolve_y(problem, y_in);
  if (c.y.empty()) return c;
  struct Pair {
    std::size_t run;
    std::vector<double> xs, ys;
  };
  std::vector<Pair> pairs;
  double lo = INFINITY, lo_pos = INFINITY, hi = -INFINITY;
  for (std::size_t r : problem.runs) {
    const Run& run = set.runs[r];
    Pair p{r, series(set, run, x, options.oracle_cost), series(set, run, c.y, options.oracle_cost)};
    if (p.xs.empty() || p.ys.empty()) continue;
    bool any = false;
    for (std::size_t k = 0; k < std::min(p.xs.size(), p.ys.size()); ++k) {
      const double a = p.xs[k];
      if (!std::isfinite(a) || !std::isfinite(p.ys[k])) continue;
      any = true;
      lo = std::min(lo, a);
      hi = std::max(hi, a);
      if (a > 0) lo_pos = std::min(lo_pos, a);
    }
    if (any) pairs.push_back(std::move(p));
  }
  if (pairs.empty()) return c;
  c.log_x = spans_decades(lo_pos, hi);
  c.grid = make_grid(c.log_x ? lo_pos : lo, hi, options.grid_points, c.log_x);

  double y_pos_min = INFINITY, y_max = -INFINITY;
  std::vector<double> column;
  for (const auto& solver : problem.solvers) {
    std::vector<std::vector<double>> rows;
    for (const auto& p : pairs)
      if (set.runs[p.run].solver == solver) rows.push_back(resample_step(p.xs, p.ys, c.grid));
    if (rows.empty()) continue;
    Band b;
    b.solver = solver;
    b.runs = static_cast<int>(rows.size());
    const std::size_t g = c.grid.size();
    b.median.assign(g, kNaN);
    b.lo.assign(g, kNaN);
    b.hi.assign(g, kNaN);
    b.count.assign(g, 0);
    for (std::size_t i = 0; i < g; ++i) {
      column.clear();
      for (const auto& row : rows)
        if (std::isfinite(row[i])) column.push_back(row[i]);
      if (column.empty()) continue;
      auto [mn, mx] = std::minmax_element(column.begin(), column.end());
      b.lo[i] = *mn;
      b.hi[i] = *mx;
      b.count[i] = static_cast<int>(column.size());
      b.median[i] = median_of(column);
      y_max = std::max(y_max, *mx);
      for (double v : column)
        if (v > 0) y_pos_min = std::min(y_pos_min, v);
    }
    c.bands.push_back(std::move(b));
  }
  // Suboptimalities and gaps are read on log axes (as in the papers) once they span one decade;
  // other quantities from two decades on.
  const bool convergence = c.y == "primal_subopt" || c.y == "dual_subopt" || c.y == "gap" || c.y == "rel_objective";
  c.log_y = convergence ? (std::isfinite(y_pos_min) && y_pos_min > 0 && y_max / y_pos_min >= 10.0)
                        : spans_decades(y_pos_min, y_max);
  return c;
}

}  // namespace dualgap::compare
