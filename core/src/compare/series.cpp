// The registry of compare series (see series.hpp): one entry per quantity.
#include "compare/series.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "compare/model.hpp"

namespace dualgap::compare {

namespace {

using Values = std::vector<double>;

Values column(const Run& run, const char* name) {
  const auto* c = run.column(name);
  return c ? *c : Values{};
}

template <class F>
Values map_column(const Run& run, const char* name, F f) {
  Values out = column(run, name);
  for (double& v : out) v = f(v);
  return out;
}

SeriesDef x_axis(std::string name, std::string label, std::string unit, std::function<Values(const SeriesInput&)> f) {
  SeriesDef d;
  d.name = std::move(name);
  d.label = std::move(label);
  d.unit = std::move(unit);
  d.role = SeriesDef::Role::x;
  d.compute = std::move(f);
  return d;
}

SeriesDef y_axis(std::string name, std::string label, std::string unit, bool convergence, bool scale_by_dual,
                 bool needs_objective, std::function<Values(const SeriesInput&)> f) {
  SeriesDef d;
  d.name = std::move(name);
  d.label = std::move(label);
  d.unit = std::move(unit);
  d.convergence = convergence;
  d.scale_by_dual_bound = scale_by_dual;
  d.needs_objective = needs_objective;
  d.compute = std::move(f);
  return d;
}

std::function<Values(const SeriesInput&)> raw(const char* name) {
  return [name](const SeriesInput& in) { return column(in.run, name); };
}

// Flags of an entry beyond its computation (SeriesDef: where it is offered and tabulated).
struct Use {
  bool reach_axis = false;
  bool final_value = false;
  bool needs_certified_dual = false;
  bool only_with_replay = false;
  bool task_measure = false;
};

SeriesDef with(SeriesDef d, Use u, std::string column = "", std::string formula = "") {
  d.formula = std::move(formula);
  d.reach_axis = u.reach_axis;
  d.final_value = u.final_value;
  d.needs_certified_dual = u.needs_certified_dual;
  d.only_with_replay = u.only_with_replay;
  d.task_measure = u.task_measure;
  d.column = std::move(column);
  return d;
}

std::vector<SeriesDef> build() {
  std::vector<SeriesDef> r;
  // ---- x axes ----
  r.push_back(with(x_axis("passes", "passes over the data", "", raw("passes")), {.reach_axis = true, .final_value = true},
                   "passes"));
  r.push_back(with(x_axis("oracle_calls", "exact oracle calls", "", raw("oracle_calls")),
                   {.reach_axis = true, .final_value = true}, "oracle_calls"));
  r.push_back(with(x_axis("approx_oracle_calls", "approximate oracle calls", "", raw("approx_oracle_calls")), {},
                   "approx_oracle_calls"));
  // time includes oracle time: replayed time = (time - oracle_time) + k * oracle_time.
  r.push_back(with(x_axis("time", "solver time", "s",
                          [](const SeriesInput& in) {
                            Values out = column(in.run, "time");
                            const auto* ot = in.run.column("oracle_time");
                            if (in.oracle_cost != 1.0 && ot)
                              for (std::size_t i = 0; i < out.size() && i < ot->size(); ++i)
                                if (std::isfinite((*ot)[i])) out[i] += (in.oracle_cost - 1.0) * (*ot)[i];
                            return out;
                          }),
                   {.reach_axis = true, .final_value = true}, "time"));
  r.push_back(with(x_axis("time_recorded", "solver time (as recorded)", "s", raw("time")), {.only_with_replay = true},
                   "time"));
  r.push_back(with(x_axis("oracle_time", "time in exact oracle", "s",
                          [](const SeriesInput& in) {
                            return map_column(in.run, "oracle_time", [&](double v) { return in.oracle_cost * v; });
                          }),
                   {}, "oracle_time"));
  // The boosting solvers' time in their master problem alone (the MultiBoost paper's "solver
  // time"); solvers without a master problem record none.
  r.push_back(with(x_axis("master_time", "time in the master problem", "s", raw("master_time")), {}, "master_time"));
  // ---- y: convergence measures against the best bounds of the run's exact problem ----
  r.push_back(with(y_axis("primal_subopt", "primal suboptimality", "", true, true, true,
                          [](const SeriesInput& in) {
                            if (!std::isfinite(in.run.best_lower)) return Values{};
                            return map_column(in.run, "primal", [&](double v) { return v - in.run.best_lower; });
                          }),
                   {.needs_certified_dual = true}, "", "P - D_best"));
  r.push_back(with(y_axis("dual_subopt", "dual suboptimality", "", true, true, true,
                          [](const SeriesInput& in) {
                            if (!std::isfinite(in.run.best_lower) || !std::isfinite(in.run.best_upper)) return Values{};
                            return map_column(in.run, "dual", [&](double v) { return in.run.best_upper - v; });
                          }),
                   {.needs_certified_dual = true}, "", "P_best - D"));
  r.push_back(with(y_axis("gap", "duality gap", "", true, true, true, raw("gap")), {.final_value = true}, "gap", "P - D"));
  r.push_back(with(y_axis("rel_objective", "relative objective", "", true, false, true,
                          [](const SeriesInput& in) {
                            if (!std::isfinite(in.run.best_upper)) return Values{};
                            const double scale = std::max(std::abs(in.run.best_upper), 1e-300);
                            return map_column(in.run, "primal",
                                              [&](double v) { return (v - in.run.best_upper) / scale; });
                          }),
                   {}, "", "(F - F_best) / |F_best|"));
  // ---- y: raw values ----
  r.push_back(with(y_axis("primal", "primal objective", "", false, false, true, raw("primal")), {.final_value = true},
                   "primal"));
  r.push_back(
      with(y_axis("dual", "dual objective", "", false, false, true, raw("dual")), {.final_value = true}, "dual"));
  r.push_back(with(y_axis("train_error", "train error", "fraction", false, false, false, raw("train_error")),
                   {.final_value = true, .task_measure = true}, "train_error"));
  r.push_back(with(y_axis("test_error", "test error", "fraction", false, false, false, raw("test_error")),
                   {.final_value = true, .task_measure = true}, "test_error"));
  // The oracle's own task loss at the prediction (mean over examples; ssvm objective): a
  // weighted or hierarchical loss differs from the 0-1 / Hamming errors above.
  r.push_back(with(y_axis("train_loss", "train task loss", "", false, false, false, raw("train_loss")),
                   {.final_value = true, .task_measure = true}, "train_loss"));
  r.push_back(with(y_axis("test_loss", "test task loss", "", false, false, false, raw("test_loss")),
                   {.final_value = true, .task_measure = true}, "test_loss"));
  r.push_back(with(y_axis("test_accuracy", "test accuracy", "fraction", false, false, false, raw("test_accuracy")),
                   {.task_measure = true}, "test_accuracy"));
  // A model's row sparsity (the sparse BCD paper's Figs. 4-5): the percentage of features
  // with a non-zero row of W; a property of the solution, so of the objective minimised.
  r.push_back(with(y_axis("nnz_rows", "non-zero rows", "%", false, false, false, raw("nnz_rows")), {}, "nnz_rows"));
  return r;
}

}  // namespace

const std::vector<SeriesDef>& series_registry() {
  static const std::vector<SeriesDef> registry = build();
  return registry;
}

const SeriesDef* find_series(const std::string& name) {
  for (const auto& d : series_registry())
    if (d.name == name) return &d;
  return nullptr;
}

std::string series_names(SeriesDef::Role role) {
  std::string out;
  for (const auto& d : series_registry())
    if (d.role == role) out += (out.empty() ? "" : ", ") + d.name;
  return out;
}

bool is_convergence(const std::string& name) {
  const SeriesDef* d = find_series(name);
  return d && d->convergence;
}

std::string axis_label(const std::string& name, double oracle_cost) {
  const SeriesDef* d = find_series(name);
  if (!d) {
    std::string s = name;
    std::replace(s.begin(), s.end(), '_', ' ');
    return s;
  }
  std::string s = d->label;
  if (!d->formula.empty()) s += " " + d->formula;
  if (!d->unit.empty()) s += " [" + d->unit + "]";
  if (oracle_cost != 1.0 && (name == "time" || name == "oracle_time"))
    s += fmt::format(" (exact oracle cost x{:g}, replayed)", oracle_cost);
  return s;
}

std::string measured_label(const std::string& name, bool relative, double oracle_cost) {
  const SeriesDef* d = find_series(name);
  if (!relative || !d) return axis_label(name, oracle_cost);
  return d->label + " (" + (d->formula.empty() ? name : d->formula) + ") / |D_best|";
}

std::vector<double> series(const RunSet& set, const Run& run, const std::string& name, double oracle_cost) {
  if (const SeriesDef* d = find_series(name)) return d->compute(SeriesInput{set, run, oracle_cost});
  if (auto* c = run.column(name)) return *c;
  return {};
}

}  // namespace dualgap::compare
