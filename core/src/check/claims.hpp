// `dualgap check`: a paper's claims as statements evaluated on recorded runs.
//
// An experiment folder's claims.yaml lists the claims of its figure or table in a small
// vocabulary (fewer, faster, lower_final, order, share, final, external; see docs/check.md).
// Runs are read with compare's loader, so grouping, reference bounds, derived series
// (primal_subopt, rel_objective, ...) and censoring are exactly those of `dualgap compare`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dualgap/json.hpp"

#include "compare/model.hpp"
#include "dualgap/api.hpp"

namespace dualgap::check {

/// Which runs one side of a claim reads: a series label (the solver name of the experiment),
/// optionally restricted to one experiment and to configuration values (dotted keys into the
/// run's data/features/oracle/problem sections, e.g. problem.lambda: 1e-3).
struct Side {
  std::string solver;
  std::string experiment;  ///< empty: the claim's (or the file's) experiment, if any
  std::map<std::string, nlohmann::json> where;
};

struct Claim {
  std::string id, kind, ref, text, paper, line;  ///< line: "file:line" for messages
  bool full_scale_only = false;                  ///< `scale: full`: not checked at CI scale
  std::vector<Side> a, b;                        ///< b: one or more (lower_final); order: a = the list
  std::string x;                                 ///< fewer/faster: axis; share: column
  std::string metric;                            ///< lower_final, order, final: column; share: `of`
  std::string to_metric;                         ///< fewer/faster: the column of the target
  double to_value = compare::kNaN;               ///< ... and its level
  bool to_b_final = false;                       ///< target = b's final value (x (1 + rel))
  double rel = 0;
  double by = 1;                                 ///< fewer/faster: ratio required; lower_final: factor
  double below = compare::kNaN, above = compare::kNaN;
  std::vector<double> at;                        ///< lower_final/order: values of `at_x` (else final)
  std::string at_x = "passes";
  bool strict = false;                           ///< order: strictly ascending
  std::string note;                              ///< external: where it is measured
};

/// One entry of a claims file's `ci` profile: an experiment file of the folder and the --set
/// values that make its CI-scale runs.
struct CiRun {
  std::string file;
  std::vector<std::string> sets;
};

/// One panel of a declared figure: its y series and scale, and the sentence the README shows
/// beside the figure (what the paper's panel shows, what ours shows).
struct FigurePanel {
  std::string y;
  bool log_y = true;
  std::string paper, ours;
  std::string line;  ///< "file:line" for messages
};

/// A figure of the paper an experiment folder reproduces (claims.yaml `figures:`), drawn by
/// `dualgap reproduce` from the folder's runs with compare's paper-style renderer: one row of
/// panels per problem (data set), a panel per entry of `panels`.
struct FigureDecl {
  std::string file;                      ///< the figure's file name beside the README (.svg or .png)
  std::string ref;                       ///< the paper's figure ("Fig. 4")
  std::string title;                     ///< the figure's title; empty: none
  /// The runs drawn, their problems in this order (the paper's order of data sets); empty: the
  /// claims file's experiment.
  std::vector<std::string> experiments;
  /// Series drawn, in this order; empty: all. Each entry selects runs as a claim's side does (a
  /// solver label, optionally with experiment and `where` values), so that a figure can draw each
  /// solver at its own setting of a sweep (MultiBoost-CW: every solver at its C), as a claim reads it.
  std::vector<Side> solvers;
  /// The legend's name of each entry of `solvers` ("" keeps the solver's label): a solver drawn
  /// at several settings, one series each (BCD-LS on each of three losses, Fig. 5).
  std::vector<std::string> labels;
  /// curves: each run a curve of y against x (the convergence figures). trade_off: each run a
  /// point, x and y at its last checkpoint, a series joining its runs (the settings of a sweep)
  /// in x order: the sparse BCD paper's Fig. 5, test accuracy against row sparsity over lambdas.
  enum class Kind { curves, trade_off } kind = Kind::curves;
  std::string x = "passes";
  bool log_x = false;
  std::vector<FigurePanel> panels;
  /// Panels per row of the picture; 0: the declared panels of one problem per row (a grid of
  /// many one-panel problems, e.g. data sets x settings, reads better with `columns: 4`).
  int columns = 0;
  std::string line;
};

/// A table of the paper an experiment folder reproduces (claims.yaml `tables:`), written by
/// `dualgap reproduce` into the README as "paper | ours" columns: each cell reads the runs one
/// Side selects, the value of `y` at each run's end, summarised by `stat` over those runs. The
/// paper's numbers are typed here once, beside the cells that reproduce them.
struct TableDecl {
  /// How a cell summarises its runs' final values: the median with [min, max] over several runs
  /// (the default), the median alone, the mean +- the standard deviation (the MultiBoost
  /// legends), the minimum or maximum (the sparse BCD paper's Table 2: min, median, max).
  enum class Stat { median_range, median, mean_std, min, max };
  struct Cell {
    Side side;
    Stat stat = Stat::median_range;
    double paper = compare::kNaN;  ///< the paper's number; NaN: the paper gives none
  };
  struct Row {
    std::string name;
    std::vector<Cell> cells;  ///< one per column
  };
  std::string ref;      ///< the paper's table ("Table 1")
  std::string caption;  ///< what the table measures, in words, with its unit
  std::string y;        ///< the series or column read at each run's end
  double scale = 1;     ///< the runs' values times this (100: a fraction shown as a percentage)
  std::vector<std::string> columns;
  std::vector<Row> rows;
  std::string note;     ///< a sentence under the table (what differs from the paper's protocol)
  std::string line;     ///< "file:line" for messages
};

struct ClaimsFile {
  std::string path, paper, experiment;
  std::vector<Claim> claims;
  /// The experiment files (plain names beside claims.yaml) a full-scale reproduction runs, in
  /// order. Empty: the folder's one experiment file (reproduce refuses a folder of several).
  std::vector<std::string> protocol;
  std::vector<CiRun> ci;
  std::vector<FigureDecl> figures;
  std::vector<TableDecl> tables;
};

/// Whether `run` is one of the runs `side` reads: its series label, its experiment (the side's,
/// else `default_experiment`, when either is set) and every `where` value of its configuration.
DUALGAP_API bool side_matches(const compare::Run& run, const Side& side, const std::string& default_experiment);

/// Reads a claims.yaml. Throws std::runtime_error naming file, line and what was expected.
DUALGAP_API ClaimsFile read_claims(const std::string& path);

/// The runs a declared figure draws: those of its experiments (the claims file's experiment when
/// it names none, else all) that one of its `solvers` selects, in their order. Throws std::runtime_error when none is left.
DUALGAP_API compare::RunSet figure_runs(const compare::RunSet& set, const ClaimsFile& file, const FigureDecl& figure);

/// The paper-style spec (compare::figure_spec) of a declared figure on the runs of figure_runs:
/// a row per problem, a panel per declared panel, the declared x and scales.
DUALGAP_API nlohmann::json declared_figure_spec(const compare::RunSet& runs, const FigureDecl& figure,
                                               const compare::Options& options);

/// A declared table as Markdown (a caption line, then the table: for each column the paper's
/// number and ours), computed from `set`. Throws std::runtime_error naming the declaration when a
/// cell selects no run, so a renamed solver cannot leave an empty cell.
DUALGAP_API std::string table_markdown(const compare::RunSet& set, const ClaimsFile& file, const TableDecl& table);

/// The final value of `name` of a run (a series as compare derives it, else a summary value);
/// NaN when the run has none.
DUALGAP_API double final_value(const compare::RunSet& set, const compare::Run& run, const std::string& name);

enum class Verdict { holds, fails, not_measurable, skipped };
DUALGAP_API const char* to_string(Verdict v);

struct Outcome {
  const Claim* claim = nullptr;
  Verdict verdict = Verdict::not_measurable;
  std::string measured;  ///< the measured figures, e.g. "MP-BCFW 1.5e5 [1.2e5, 1.8e5] 10/10 vs ..."
  std::string reason;    ///< why not measurable / why it fails, when not obvious from `measured`
  /// How the runs the claim read differ from the claim's scale (scale_differences), e.g.
  /// {"repeats 2 not 10", "stop.max_time 4 not 60"}; empty: at scale, or not known.
  std::vector<std::string> scale;
};

/// The verdict as the outputs show it: "holds", or "holds (not at the claim's scale: repeats 2
/// not 10, stop.max_time 4 not 60)".
DUALGAP_API std::string verdict_text(const Outcome& o);
/// What verdict_text adds to the verdict: "" at scale, else " (not at the claim's scale: ...)".
DUALGAP_API std::string scale_note(const Outcome& o);

/// How the protocol of `runs` differs from the one the claims file states: the experiment file of
/// its folder that the runs were made from (same file name as their config.file), with the `ci`
/// profile's --set values when `ci_scale`. Compared: repeats (the repeats present), every stop
/// key, the data keys of numbers and booleans (sizes, subsampling), and sweep lists; the values
/// are those run.json recorded (the expanded configuration) and its config.sets. Each item reads
/// "KEY ACTUAL not EXPECTED". Runs whose file is not in the folder are not compared.
DUALGAP_API std::vector<std::string> scale_differences(const ClaimsFile& file,
                                                       const std::vector<const compare::Run*>& runs, bool ci_scale);

/// Evaluates one claim on the runs (skipped when `ci_scale` and the claim is full-scale only).
DUALGAP_API Outcome evaluate(const compare::RunSet& runs, const ClaimsFile& file, const Claim& claim,
                             bool ci_scale);

/// The count of verdicts a check prints last ("12 claims: 9 hold, 1 fail, 2 not measurable, ...").
struct Tally {
  int holds = 0, fails = 0, unmeasured = 0, skipped = 0, external = 0, off_scale = 0;
  DUALGAP_API void add(const Outcome& o);
  /// One line, ending with a newline; the categories that are 0 past "not measurable" left out.
  DUALGAP_API std::string line() const;
};

/// Text (one block per claim) or a Markdown table (the README's results table). Markdown rows
/// start with `row_prefix` (the folder, when several files make one table); `header` prints the
/// table head.
DUALGAP_API std::string format_outcomes(const ClaimsFile& file, const std::vector<Outcome>& outcomes,
                                        const std::string& format, const std::string& row_prefix = "",
                                        bool header = true);
DUALGAP_API nlohmann::json outcomes_json(const ClaimsFile& file, const std::vector<Outcome>& outcomes);

/// The claims files (experiments/*/claims.yaml, from ./experiments or the source tree) that name
/// an experiment of these runs. Throws std::runtime_error for a bad claims file.
DUALGAP_API std::vector<ClaimsFile> claims_for_runs(const compare::RunSet& set);

/// Every claim of `files` evaluated on `set`: one outcomes_json() per file (the HTML report's
/// verdicts at its top).
DUALGAP_API nlohmann::json verdicts_json(const compare::RunSet& set, const std::vector<ClaimsFile>& files,
                                         bool ci_scale);

}  // namespace dualgap::check
