// Common grids and median / min-max / interquartile bands of repeats (the series themselves
// come from the registry, series.cpp).
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
  // A run's x only grows, except in sampling mode, where each checkpoint is a restart with its
  // own time and passes: there the value at g is that of the restart with the largest x <= g.
  std::stable_sort(valid.begin(), valid.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
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

double quantile_of(std::vector<double> v, double q) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double a) { return !std::isfinite(a); }), v.end());
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const std::size_t i = static_cast<std::size_t>(std::floor(pos));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
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
  const Measure m = measure_of(set, problem, y_in, options);
  c.y = m.y;
  c.relative = m.relative;
  c.label = m.label;
  if (c.y.empty()) {
    c.missing = problem.solvers;
    return c;
  }
  struct Pair {
    std::size_t run;
    std::vector<double> xs, ys;
  };
  std::vector<Pair> pairs;
  double lo = INFINITY, lo_pos = INFINITY, hi = -INFINITY;
  for (std::size_t r : problem.runs) {
    const Run& run = set.runs[r];
    Pair p{r, series(set, run, x, options.oracle_cost), measured_series(set, run, c.y, options, c.relative)};
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
  if (pairs.empty()) {
    c.missing = problem.solvers;
    return c;
  }
  c.log_x = spans_decades(lo_pos, hi);
  c.grid = make_grid(c.log_x ? lo_pos : lo, hi, options.grid_points, c.log_x);

  double y_pos_min = INFINITY, y_max = -INFINITY;
  std::vector<double> column;
  for (const auto& solver : problem.solvers) {
    std::vector<std::vector<double>> rows;
    for (const auto& p : pairs)
      if (set.runs[p.run].solver == solver) rows.push_back(resample_step(p.xs, p.ys, c.grid));
    if (rows.empty()) {
      c.missing.push_back(solver);
      continue;
    }
    Band b;
    b.solver = solver;
    b.runs = static_cast<int>(rows.size());
    const std::size_t g = c.grid.size();
    b.median.assign(g, kNaN);
    b.lo.assign(g, kNaN);
    b.hi.assign(g, kNaN);
    b.count.assign(g, 0);
    b.q1.assign(g, kNaN);
    b.q3.assign(g, kNaN);
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
      b.q1[i] = quantile_of(column, 0.25);
      b.q3[i] = quantile_of(column, 0.75);
      y_max = std::max(y_max, *mx);
      for (double v : column)
        if (v > 0) y_pos_min = std::min(y_pos_min, v);
    }
    c.bands.push_back(std::move(b));
  }
  // Suboptimalities and gaps are read on log axes (as in the papers) once they span one decade;
  // other quantities from two decades on.
  const bool convergence = is_convergence(c.y);
  c.log_y = convergence ? (std::isfinite(y_pos_min) && y_pos_min > 0 && y_max / y_pos_min >= 10.0)
                        : spans_decades(y_pos_min, y_max);
  return c;
}

}  // namespace dualgap::compare
