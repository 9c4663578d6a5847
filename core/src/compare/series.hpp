// The one registry of what `dualgap compare` can put on an axis or in a table: every quantity's
// name, label, unit, how it is computed from a run, and whether it is a convergence measure
// (decreasing to 0, read on log axes, measured at relative levels). Tables, figures, the HTML
// report, the CSV export and performance profiles all look quantities up here, so a new
// plotted quantity or table column is one entry in series.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap::compare {

struct Run;
struct RunSet;

/// What a series computation sees: the run, its set (for bounds) and the oracle-cost replay.
struct SeriesInput {
  const RunSet& set;
  const Run& run;
  double oracle_cost = 1.0;
};

struct SeriesDef {
  std::string name;
  std::string label;  ///< axis label without the formula and the unit ("primal suboptimality")
  /// What it computes, for labels: "P - D_best"; "" when the label says it all. A relative
  /// measure is labelled "(formula) / |D_best|", with the parentheses.
  std::string formula;
  std::string unit;   ///< "" when dimensionless
  enum class Role { x, y } role = Role::y;
  /// Decreases to 0 at the optimum (suboptimalities, gaps): log axes once it spans a decade,
  /// and tables may measure it relative to the best bound (--levels relative).
  bool convergence = false;
  /// --levels relative divides this series by |D_best| (the best certified dual) of the run's
  /// problem; false for series that are relative already or are not objective differences.
  bool scale_by_dual_bound = false;
  /// Needs a recorded objective (primal): a run without one shows n/a, never "censored".
  bool needs_objective = false;
  /// The same quantity whatever objective a solver minimises (errors, accuracy, task losses):
  /// a figure of task measures draws runs of different objectives on one data set together.
  bool task_measure = false;
  /// Measured against the best certified dual bound (P - D_best, P_best - D): offered only
  /// where some problem has a certified dual.
  bool needs_certified_dual = false;
  /// The curve column it reads as it is; "" for a series computed from several columns or
  /// bounds (always offered; it is empty for a run that lacks what it needs).
  std::string column;
  /// An x axis of the time-to-reach tables (time, passes, calls to reach each eps).
  bool reach_axis = false;
  /// A column of the final-values tables and of each run's "final" entry in --json.
  bool final_value = false;
  /// Offered as an axis only when --oracle-cost replays oracle time (time as recorded).
  bool only_with_replay = false;
  /// Empty when the run does not have what the series needs.
  std::function<std::vector<double>(const SeriesInput&)> compute;
};

/// Every registered series, in the order selectors list them (x axes first).
DUALGAP_API const std::vector<SeriesDef>& series_registry();

/// The registered series `name`; nullptr for a raw curve column that is not registered
/// (such columns are plotted as they are, see series()).
DUALGAP_API const SeriesDef* find_series(const std::string& name);

/// "label formula [unit]", with the oracle-cost replay stated on replayed time axes.
DUALGAP_API std::string axis_label(const std::string& name, double oracle_cost = 1.0);

/// axis_label of the series divided by |D_best| when `relative` ("primal suboptimality
/// (P - D_best) / |D_best|"): the one label of what a figure, a final value and a table measure.
DUALGAP_API std::string measured_label(const std::string& name, bool relative, double oracle_cost = 1.0);

/// The names of the registered series of one role, comma-separated (for help texts).
DUALGAP_API std::string series_names(SeriesDef::Role role);

/// True when `name` is a convergence measure (registered as one).
DUALGAP_API bool is_convergence(const std::string& name);

}  // namespace dualgap::compare
