// Internal model of `dualgap compare`: runs read from run.json files, grouped by problem and
// solver, with reference bounds, curves resampled onto a common grid, and epsilon tables.
//
// Exported (DUALGAP_API) so that tests/compare and bench/compare_bench can check each step;
// the CLI only needs compare.hpp.
#pragma once

#include <cstddef>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dualgap/api.hpp"

namespace dualgap::compare {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// One run.json. Curve columns are numeric; JSON null becomes NaN.
struct Run {
  std::string path, experiment, run_id, solver, status, message;
  /// Grouping key: runs of the same problem up to seeds (`group_key`, else `problem_key`):
  /// repeats over different data splits form one band.
  std::string problem_key;
  /// The exact problem (`problem_key`: same data split and feature draws): reference bounds
  /// are taken over the runs sharing it, since each split has its own optimum.
  std::string bound_key;
  double best_upper = kNaN;  ///< lowest primal over the runs sharing bound_key
  double best_lower = kNaN;  ///< highest certified dual over the runs sharing bound_key
  bool approximate = false;
  nlohmann::json problem_config;  ///< data/features/oracle/problem sections, for labels
  std::map<std::string, std::vector<double>> curve;
  std::map<std::string, double> summary;
  std::size_t problem = 0;  ///< index into RunSet::problems

  const std::vector<double>* column(const std::string& name) const;
};

/// Runs sharing data, features, oracle and problem parameters.
struct Problem {
  std::string key, label;
  std::vector<std::size_t> runs;     ///< indices into RunSet::runs
  std::vector<std::string> solvers;  ///< solvers present, in RunSet::solvers order
  double best_upper = kNaN;          ///< lowest primal over all runs (one data split; else NaN)
  double best_lower = kNaN;          ///< highest certified dual over all runs (one split; else NaN)
  /// (lowest primal, highest certified dual) of each exact problem (bound_key: one data split
  /// and feature draw) in the group, in order of first appearance. Suboptimality is measured
  /// against a run's own split; bounds of different splits are not comparable with each other.
  std::vector<std::pair<double, double>> split_bounds;
  bool has_dual = false;             ///< some run recorded a dual value
  bool approximate = false;          ///< some run's primal/dual is only approximate
};

struct RunSet {
  std::vector<Run> runs;
  std::vector<Problem> problems;
  std::vector<std::string> solvers;   ///< all solver names, order of first appearance
  std::vector<std::string> warnings;  ///< unreadable files and the like
};

struct Options {
  double oracle_cost = 1.0;  ///< replay factor k: each exact oracle call costs k times more
  int grid_points = 120;
};

// ---- reading and grouping (runs.cpp) -------------------------------------------------------

/// run.json files named by `inputs` (files, or directories searched recursively), sorted.
/// Throws std::runtime_error for a path that does not exist.
DUALGAP_API std::vector<std::filesystem::path> find_run_files(const std::vector<std::string>& inputs);

/// Parses one run.json document. Throws std::runtime_error when it is not a dualgap.run/1.
DUALGAP_API Run parse_run(const nlohmann::json& doc, const std::string& path);

/// The problem key of a run: `problem_key` when present, else a hash of the configuration
/// without the solver/seed/repeat/stop/record/name keys.
DUALGAP_API std::string problem_key_of(const nlohmann::json& doc);

/// Reads every run (unreadable files become warnings), groups them and computes bounds.
DUALGAP_API RunSet load_runs(const std::vector<std::string>& inputs);

/// Groups `set.runs` into problems and computes reference bounds (done by load_runs).
DUALGAP_API void group_runs(RunSet& set);

// ---- series, grids and bands (curves.cpp) --------------------------------------------------

/// A column of a run, raw or derived: primal_subopt (primal - best lower bound), dual_subopt
/// (best upper bound - dual), rel_objective ((primal - best upper)/|best upper|), time and
/// oracle_time replayed with `oracle_cost`. Empty when not available.
DUALGAP_API std::vector<double> series(const RunSet& set, const Run& run, const std::string& name,
                                       double oracle_cost = 1.0);

/// The y actually used for a problem: primal_subopt falls back to rel_objective when the
/// problem has no certified dual; dual_subopt is then unavailable (returns "").
DUALGAP_API std::string resolve_y(const Problem& problem, const std::string& y);

DUALGAP_API std::string axis_label(const std::string& name, double oracle_cost = 1.0);

/// True when positive values from lo to hi span at least two decades.
DUALGAP_API bool spans_decades(double lo, double hi);

/// n points from lo to hi, log-spaced when `log` (lo must then be > 0); ends exact.
DUALGAP_API std::vector<double> make_grid(double lo, double hi, int n, bool log);

/// Step-function resampling: at each grid point the y of the last checkpoint with x <= g;
/// NaN before the first checkpoint and after the last (no extrapolation). Checkpoints with a
/// missing x or y are skipped; x is assumed non-decreasing.
DUALGAP_API std::vector<double> resample_step(const std::vector<double>& x,
                                              const std::vector<double>& y,
                                              const std::vector<double>& grid);

/// Median with min-max band of one solver's repeats on the grid.
struct Band {
  std::string solver;
  int runs = 0;
  std::vector<double> median, lo, hi;
  std::vector<int> count;  ///< repeats defined at each grid point
};

struct Curves {
  std::string x, y;  ///< y after resolve_y
  std::vector<double> grid;
  bool log_x = false, log_y = false;
  std::vector<Band> bands;  ///< one per solver of the problem that has data
};

DUALGAP_API Curves make_curves(const RunSet& set, const Problem& problem, const std::string& x,
                               const std::string& y, const Options& options);

/// Median of finite values (mean of the middle two for an even count); NaN when none.
DUALGAP_API double median_of(std::vector<double> values);

// ---- epsilon tables (tables.cpp) -----------------------------------------------------------

/// First x at which y <= eps; when never reached, `value` is the run's budget (its last x).
struct Hit {
  bool reached = false;
  double value = kNaN;
};

DUALGAP_API Hit first_reach(const std::vector<double>& x, const std::vector<double>& y, double eps);

/// Order statistics of possibly censored values: a censored value v means "more than v".
struct CensoredStats {
  int total = 0, reached = 0;
  double median = kNaN;
  bool median_censored = false;  ///< median > `median` (its lower bound; censored runs decide it)
  double min = kNaN;             ///< smallest reached value (NaN when none reached)
  double max = kNaN;
  bool max_censored = false;     ///< max > `max` (some run censored; `max` = largest value or budget)
};

DUALGAP_API CensoredStats censored_stats(const std::vector<Hit>& hits);

/// Everything `compare` reports for scripts: bounds, per-solver status counts, epsilon tables,
/// final values and per-run status. Also the source of the text and HTML tables.
DUALGAP_API nlohmann::json compute_tables(const RunSet& set, const std::string& y,
                                          const std::vector<double>& eps, const Options& options);

DUALGAP_API std::string format_text(const nlohmann::json& tables);
/// The reference-bound sentence of one problem of compute_tables (text, or HTML with <b>):
/// "best upper bound ... best lower bound ..." for one data split, and the bounds of each split
/// when the repeats drew different splits.
std::string bounds_sentence(const nlohmann::json& problem, bool html);

/// Formats a CensoredStats JSON object as "median [min, max] reached/total".
DUALGAP_API std::string format_cell(const nlohmann::json& cell);

DUALGAP_API std::string format_number(double v);

// ---- outputs (html.cpp, figure.cpp) --------------------------------------------------------

struct HtmlOptions {
  std::string title = "dualgap compare";
  std::string x = "passes", y = "primal_subopt";
  std::vector<double> eps;
};

DUALGAP_API std::string render_html(const RunSet& set, const nlohmann::json& tables,
                                    const HtmlOptions& html, const Options& options);

struct FigureOptions {
  std::string x = "oracle_calls";
  std::vector<std::string> panels;  ///< y per panel; empty: paper layout
  std::string title;
};

/// Builds the JSON spec that plot_figure.py draws.
DUALGAP_API nlohmann::json figure_spec(const RunSet& set, const FigureOptions& figure,
                                       const Options& options);

/// Locates plot_figure.py: $DUALGAP_PLOT_SCRIPT, <exe_dir>/../share/dualgap/, source tree.
DUALGAP_API std::string find_plot_script();

/// Writes the spec to a temporary file and runs the plotting script. Throws on failure.
DUALGAP_API void write_figure(const nlohmann::json& spec, const std::string& out_path);

}  // namespace dualgap::compare
