// Internal model of `dualgap compare`: runs read from run.json files, grouped by problem and
// solver, with reference bounds, curves resampled onto a common grid, and epsilon tables.
//
// Exported (DUALGAP_API) so that tests/compare and bench/compare_bench can check each step;
// the CLI only needs compare.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dualgap/json.hpp"

#include "compare/series.hpp"
#include "compare/table_format.hpp"
#include "dualgap/api.hpp"
#include "run/run_files.hpp"

namespace dualgap::compare {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The last finite value of a series (a run's final value); NaN when there is none.
inline double last_finite(const std::vector<double>& v) {
  for (auto it = v.rbegin(); it != v.rend(); ++it)
    if (std::isfinite(*it)) return *it;
  return kNaN;
}

/// A number for JSON output, null when it is not finite (JSON has no NaN or infinity).
inline nlohmann::json json_number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

/// One run.json. Curve columns are numeric; JSON null becomes NaN.
struct Run {
  std::string path, experiment, run_id, status, message;
  /// The series the run belongs to: run.json's `label` (e.g. "B[M=2]" for one value of a
  /// solver-parameter sweep), else the solver's name. Bands, colours and tables are keyed by it.
  std::string solver;
  std::string solver_name;  ///< the configured solver's name (`solver` of run.json)
  /// The objective the run minimises (run.json `objective_key`; empty in older files): bounds
  /// and bands are only ever taken over runs of one objective.
  std::string objective_key;
  nlohmann::json objective;  ///< run.json `objective` (family, loss, lambda, ...), for labels
  int repeat = -1;
  nlohmann::json seeds;      ///< config.seeds (data, features, solver), for the CSV export
  /// Position of the solver in the experiment's YAML `solvers` list (run.json `solver_index`,
  /// else read from the experiment file named in config.file); -1 when unknown.
  int solver_index = -1;
  /// Grouping key: runs of the same problem up to seeds (`group_key`, else `problem_key`) and
  /// of the same objective: repeats over different data splits form one band.
  std::string problem_key;
  std::string data_key;  ///< problem_key without the objective: runs on the same data
  /// The exact problem (`problem_key`: the same data, by their content hash, and the same
  /// objective): reference bounds are taken over the runs sharing it, since each has its own
  /// optimum.
  std::string bound_key;
  /// run.json has `data_content_hash`, so problem_key names its data. Older runs were keyed by
  /// their data and feature seeds, used or not: their repeats of one fixed split look like
  /// different splits.
  bool keyed_by_data = false;
  double best_upper = kNaN;  ///< lowest primal over the runs sharing bound_key
  double best_lower = kNaN;  ///< highest certified dual over the runs sharing bound_key
  bool approximate = false;
  /// run.json `sampling` (a library solver run once per budget, dualgap/sampling.hpp); null otherwise.
  nlohmann::json sampling;
  nlohmann::json problem_config;  ///< data/features/oracle/problem sections and the experiment file, for labels
  /// run.json config.stop and config.sets (the budget and the --set overrides the run was made
  /// with), for check's comparison with a claim's scale.
  nlohmann::json protocol;
  /// What a series' runs must share beyond their problem: the experiment, the solver section,
  /// the stop and record rules (run.json config without the problem's sections, the seeds and
  /// the repeat; a swept solver parameter is in the solver section). Runs of one label that
  /// differ here are two series (separate_series in runs.cpp).
  std::string series_config;
  std::map<std::string, std::vector<double>> curve;
  std::map<std::string, double> summary;
  std::size_t problem = 0;  ///< index into RunSet::problems

  DUALGAP_API const std::vector<double>* column(const std::string& name) const;
  /// True when the curve records a finite primal somewhere: runs without one (a solver with
  /// no objective) show n/a for objective-based measures, never a censored value.
  DUALGAP_API bool has_objective() const;
  DUALGAP_API std::size_t checkpoints() const;
};

/// Runs sharing data, features, oracle and problem parameters.
struct Problem {
  std::string key, label;
  /// What tells this problem apart from the set's others, for a figure's row ("bcd-fig2-4-mnist |
  /// lambda=0.001"; title_problems); `label` names all of it.
  std::string title;
  std::string objective_key;
  /// Why this problem is shown apart from others on the same data (different objectives);
  /// empty otherwise.
  std::string note;
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
  /// Every label read, in display order, before --solver/--problem selection: colours and
  /// markers are indexed by it, so a solver keeps its colour in every figure of an experiment.
  std::vector<std::string> palette;
};

struct Options {
  double oracle_cost = 1.0;  ///< replay factor k: each exact oracle call costs k times more
  int grid_points = 120;
  /// What the figures, the HTML plots, the final values, the epsilon tables and the profiles
  /// measure (one setting for all, see measure_of): relative ((P - D_best) / |D_best| for the
  /// series the registry scales by the dual bound, where the problem has a non-zero certified
  /// bound) or absolute.
  enum class Levels { relative, absolute } levels = Levels::relative;
};

/// Which runs to compare and in which order the series appear.
struct Selection {
  std::vector<std::string> solvers;   ///< globs on the series label or the solver name; empty: all
  std::vector<std::string> problems;  ///< globs on the problem label or key; empty: all
  /// "config" (the YAML's solvers order, then first appearance), "name", or a comma-separated
  /// list of labels (the labels not listed follow in config order).
  std::string order = "config";
};

// ---- reading and grouping (runs.cpp) -------------------------------------------------------

/// The run of one checked run.json (read_run_file in CurveMode::columns).
DUALGAP_API Run parse_run(RunFile file);

/// The problem key of a run: `problem_key` when present, else a hash of the configuration
/// without the solver/seed/repeat/stop/record/name keys.
DUALGAP_API std::string problem_key_of(const nlohmann::json& doc);

/// Reads every run (unreadable files become warnings), groups them and computes bounds.
DUALGAP_API RunSet load_runs(const std::vector<std::string>& inputs);

/// Groups `set.runs` into problems and computes reference bounds (done by load_runs).
/// Series are ordered by `order` (see Selection::order).
DUALGAP_API void group_runs(RunSet& set, const std::string& order = "config");

/// Keeps the runs matching `selection` and regroups them. Throws std::runtime_error naming the
/// globs when nothing is left.
DUALGAP_API void select_runs(RunSet& set, const Selection& selection);

// ---- series, grids and bands (curves.cpp) --------------------------------------------------

/// A series of a run: a registered one (series.hpp: primal_subopt, dual_subopt, rel_objective,
/// replayed time, ...) or a raw curve column. Empty when not available.
DUALGAP_API std::vector<double> series(const RunSet& set, const Run& run, const std::string& name,
                                       double oracle_cost = 1.0);

/// The y actually used for a problem: primal_subopt falls back to rel_objective when the
/// problem has no certified dual; dual_subopt is then unavailable (returns "").
DUALGAP_API std::string resolve_y(const Problem& problem, const std::string& y);

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

/// Median with min-max and interquartile bands of one solver's repeats on the grid.
struct Band {
  std::string solver;
  int runs = 0;
  std::vector<double> median, lo, hi, q1, q3;
  std::vector<int> count;  ///< repeats defined at each grid point
};

struct Curves {
  std::string x, y;  ///< y after resolve_y
  bool relative = false;  ///< y divided by |D_best| (measure_of)
  std::string label;      ///< y's label at those levels (measured_label)
  std::vector<double> grid;
  bool log_x = false, log_y = false;
  std::vector<Band> bands;  ///< one per solver of the problem that has data
  std::vector<std::string> missing;  ///< solvers of the problem without this (x, y): listed, not dropped
};

DUALGAP_API Curves make_curves(const RunSet& set, const Problem& problem, const std::string& x,
                               const std::string& y, const Options& options);

/// Median of finite values (mean of the middle two for an even count); NaN when none.
DUALGAP_API double median_of(std::vector<double> values);

/// Quantile q in [0, 1] of finite values, linear interpolation (numpy's default); NaN when none.
DUALGAP_API double quantile_of(std::vector<double> values, double q);

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

/// What is measured of `y` on problem `p`, by the figures, the HTML plots, the final values,
/// the epsilon tables and the profiles alike: the series after resolve_y (empty: not available),
/// whether it is divided by |D_best| (relative_levels), and its label with the formula.
struct Measure {
  std::string y;
  bool relative = false;
  std::string label;
};
DUALGAP_API Measure measure_of(const RunSet& set, const Problem& p, const std::string& y, const Options& options);

/// True when `y` of problem `p` is measured relative to |D_best| (--levels relative, a series
/// the registry scales by the dual bound, and a non-zero certified bound for every run).
DUALGAP_API bool relative_levels(const RunSet& set, const Problem& p, const std::string& y, const Options& options);

/// The series the epsilon tables and profiles measure: `y`, divided by |D_best| when `relative`.
DUALGAP_API std::vector<double> measured_series(const RunSet& set, const Run& run, const std::string& y,
                                                const Options& options, bool relative);

/// True when `run` cannot be measured on `y` (checkpoints but no objective, or no finite value):
/// shown as n/a, never as censored.
DUALGAP_API bool run_is_na(const Run& run, const std::string& y, const std::vector<double>& ys);

/// The heading of a problem's final values, naming the columns measured relative to |D_best|.
std::string final_heading(const nlohmann::json& problem);

/// The columns of a problem's final-values table, in display order.
std::vector<std::string> final_columns(const nlohmann::json& problem);

/// The tables of compute_tables as aligned text, Markdown, LaTeX or CSV.
DUALGAP_API std::string format_tables(const nlohmann::json& tables, TableFormat format);
DUALGAP_API std::string format_text(const nlohmann::json& tables);
/// The reference-bound sentence of one problem of compute_tables (text, or HTML with <b>):
/// "best upper bound ... best lower bound ..." for one data split, and the bounds of each split
/// when the repeats drew different splits.
std::string bounds_sentence(const nlohmann::json& problem, bool html);

/// Formats a CensoredStats JSON object as "median [min, max] reached/total".
DUALGAP_API std::string format_cell(const nlohmann::json& cell);

DUALGAP_API std::string format_number(double v);

// ---- performance and data profiles (profile.cpp) ---------------------------------------------

struct ProfileOptions {
  std::string measure = "time";      ///< cost axis: time, passes, oracle_calls, ...
  std::string y = "primal_subopt";   ///< suboptimality measured (at the tables' levels)
  double tol = 1e-3;                 ///< "solved" = measured suboptimality <= tol
};

struct Profile {
  std::string measure, y;
  double tol = 0;
  std::vector<std::string> solvers, problems;
  std::vector<std::string> levels;              ///< per problem: what was measured (its label)
  std::vector<char> relative;                   ///< per problem: measured relative to |D_best|
  std::vector<std::vector<double>> cost, ratio;  ///< [problem][solver]; +inf: not solved
  std::vector<int> solved;                       ///< per solver
  std::vector<double> geomean_ratio;             ///< per solver, over the problems it solved
  /// Solver indices of the solvers that solved some problem: most solved, then lowest geomean.
  /// A solver that solved nothing has no rank (nothing tells such solvers apart).
  std::vector<std::size_t> ranking;
  /// "duality gap (P - D) / |D_best| <= 0.001 (relative levels)": what "solved" means here.
  DUALGAP_API std::string solved_text() const;
  /// The caption of the profiles, the same in the figure and the HTML report: how many problems,
  /// what "solved" means (measure, tolerance, levels), and the solvers that solved none (not drawn).
  DUALGAP_API std::vector<std::string> notes() const;
  DUALGAP_API std::vector<double> ratios_of(std::size_t solver) const;
  DUALGAP_API std::vector<double> costs_of(std::size_t solver) const;
};

DUALGAP_API Profile compute_profile(const RunSet& set, const ProfileOptions& profile, const Options& options);

/// #{values <= threshold} / problems (the value of a performance or data profile).
DUALGAP_API double profile_fraction(const std::vector<double>& values, std::size_t problems, double threshold);

DUALGAP_API nlohmann::json profile_json(const Profile& profile);

/// The two panels of the profiles as drawn (figure spec panels: title, axis labels, log base,
/// and per solver that solved something the step line x / median): performance profile rho_s(tau)
/// on a log2 tau axis from 1, data profile d_s(alpha) on a log10 axis; each line starts at 0 and
/// holds its last value to the right end. Built from profile_json's breakpoints; the figure and
/// the HTML report both draw these.
DUALGAP_API nlohmann::json profile_panels(const Profile& profile);
DUALGAP_API Table profile_table(const Profile& profile);
DUALGAP_API std::string format_profile(const Profile& profile, TableFormat format);

// ---- final values over repeats (finals.cpp) --------------------------------------------------

/// The final-values view (strip plots), built from compute_tables' output alone, so its numbers
/// are the tables' and --json's: per problem, one panel per quantity, per series (in the
/// problem's order, its place on the x axis) every run's final value as tables["runs"][i]["final"]
/// holds it, a sideways offset in [-0.25, 0.25] (deterministic: the golden-ratio sequence over the
/// series' runs in load order, so runs with equal values stay apart), and the median of the
/// final-values table. `quantities` empty: the measured y (tables' y at its levels, per problem),
/// gap, test_error and time, those that some run of the shown problems has; a problem shows every
/// one of them (a panel without a value says so), so the rows line up.
DUALGAP_API nlohmann::json finals_json(const nlohmann::json& tables, const std::vector<std::string>& quantities = {});

// ---- exports (export.cpp) -------------------------------------------------------------------

/// Writes every curve in long format to `path` (CSV, one row per run x checkpoint: experiment,
/// problem and objective keys, solver label, run, repeat, seeds, status, checkpoint index, every
/// recorded curve column, then the derived convergence measures). Returns the number of rows.
/// Throws std::runtime_error when the file cannot be written.
DUALGAP_API std::size_t write_csv(const RunSet& set, const std::string& path, const Options& options);

// ---- outputs (html.cpp, figure.cpp) --------------------------------------------------------

struct HtmlOptions {
  std::string title = "dualgap compare";
  std::string x = "passes", y = "primal_subopt";
  std::vector<double> eps;
  /// The papers' claims evaluated on these runs (check::verdicts_json: one entry per claims
  /// file), shown at the top of the report; null or empty: no claims section.
  nlohmann::json verdicts;
  std::string verdicts_scale = "full";  ///< full or ci: the scale they were evaluated at
  /// The profiles section (shown from kHtmlProfileProblems problems on): these numbers (the CLI's
  /// --profile), else computed with the report's x as the cost measure, its y and profile_tol.
  std::optional<Profile> profile;
  double profile_tol = 1e-3;
};

/// The HTML report shows performance and data profiles from this many problems on: over one
/// problem they are a single step per solver, which the time-to-reach table says better.
inline constexpr std::size_t kHtmlProfileProblems = 2;

/// uPlot's browser build and stylesheet, inlined into the report.
struct UplotFiles {
  std::string js, css;
};

/// Where uPlot is looked for: $DUALGAP_UPLOT_DIR, <exe_dir>/../share/dualgap/uplot, then the
/// dist/ directory of the npm package under npm's global prefixes (scripts/setup.sh installs it).
DUALGAP_API std::vector<std::string> uplot_search_dirs();

/// Reads uPlot from the first of `dirs` holding it; throws std::runtime_error listing `dirs`.
DUALGAP_API UplotFiles load_uplot(const std::vector<std::string>& dirs);

/// The report: tables for every y of the selector, plots drawn by uPlot (inlined; throws
/// std::runtime_error naming the places looked in when it is not installed).
DUALGAP_API std::string render_html(const RunSet& set, const HtmlOptions& html, const Options& options);

struct FigureOptions {
  std::string x = "oracle_calls";
  std::vector<std::string> metrics;  ///< y per panel; empty: paper layout
  /// "metric": a row per problem, a panel per metric (the MP-BCFW paper's Figures 4/5);
  /// "problem": a panel per problem (for each metric), wrapped into `columns` columns.
  std::string panels = "metric";
  std::string title;
  std::string style = "paper";   ///< paper | slides | screen: font size, panel size, dpi, line widths
  double width = 0, height = 0;  ///< whole figure in inches; 0: the style's panel size x grid
  double dpi = 0, font_size = 0; ///< 0: the style's
  int columns = 0;               ///< panels per row; 0: metrics per problem (metric) or up to 3 (problem)
  std::string band = "minmax";   ///< minmax | iqr | none
};

/// Builds the JSON spec that plot_figure.py draws.
DUALGAP_API nlohmann::json figure_spec(const RunSet& set, const FigureOptions& figure,
                                       const Options& options);

/// The file name of the data a configuration reads (its training file, else its data set's name,
/// path or directory), or "" when it reads none (generated data).
DUALGAP_API std::string data_file_name(const nlohmann::json& config);

/// The data set a run was made on, as a title names it: its data_file_name, else its data plugin.
DUALGAP_API std::string data_name(const Run& run);

/// A run's objective as labels and titles show it, term by term: (key, text) of its family, loss
/// and link, its other names, then its numbers as "key=value" ("lambda=0.001", 3 digits).
DUALGAP_API std::vector<std::pair<std::string, std::string>> objective_terms(const nlohmann::json& objective);

/// Sets each problem's `title` (titles.cpp): the facts true of all its runs (experiment, data set,
/// features, oracle, objective terms, data settings, in that order) that tell it apart from the
/// set's other problems, each named only when the ones before leave rows alike; a short hash of
/// the key when no fact does.
DUALGAP_API void title_problems(RunSet& set);

/// The spec of a trade-off figure: each run one point, `figure.x` and each metric at its last
/// checkpoint; a series' runs of one objective (its repeats) give one point at their medians,
/// with the repeats' range on y, and its points are joined in x order (one per setting of a
/// sweep: the sparse BCD paper's Fig. 5, test accuracy against row sparsity over lambdas).
/// A row of panels per problem, as figure_spec's.
DUALGAP_API nlohmann::json trade_off_figure_spec(const RunSet& set, const FigureOptions& figure,
                                                 const Options& options);

/// The spec of the final-values figure (finals_json drawn as strip plots: one point per run, a bar
/// at the median), laid out by `figure.panels` and `figure.columns` as figure_spec's.
DUALGAP_API nlohmann::json finals_figure_spec(const RunSet& set, const nlohmann::json& finals,
                                              const FigureOptions& figure);

/// The spec of a figure of performance profiles (left) and data profiles (right).
DUALGAP_API nlohmann::json profile_figure_spec(const RunSet& set, const Profile& profile,
                                               const FigureOptions& figure);

/// Colour (#rrggbb) and matplotlib marker of a series label: fixed by its place in
/// RunSet::palette, shared by the figures and the HTML report.
DUALGAP_API std::pair<std::string, std::string> series_style(const RunSet& set, const std::string& label);

/// Locates plot_figure.py: $DUALGAP_PLOT_SCRIPT, <exe_dir>/../share/dualgap/, source tree.
DUALGAP_API std::string find_plot_script();

/// Writes the spec to a temporary file and runs the plotting script. Throws on failure.
DUALGAP_API void write_figure(const nlohmann::json& spec, const std::string& out_path);

}  // namespace dualgap::compare
