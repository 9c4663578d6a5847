// The run recorder: solver clock, checkpoint schedule, stop criteria, the columnar curve.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dualgap/solver.hpp"
#include "dualgap/objective.hpp"

namespace dualgap {

struct DUALGAP_API StopCriteria {
  std::optional<double> max_passes;
  std::optional<double> max_oracle_calls;
  std::optional<double> max_time_s;   ///< solver time budget (evaluation excluded)
  std::optional<double> gap;          ///< stop when primal - dual <= gap
  std::optional<double> rel_gap;      ///< stop when (primal - dual) <= rel_gap * |primal|
  /// Status "diverged" when |primal| exceeds this factor times |primal of the first row| (or a
  /// value is not finite); 0 turns the growth test off. stop.diverge in the YAML.
  double diverge = 1e6;
  static StopCriteria from_json(const json& j);
};

struct DUALGAP_API Schedule {
  double every = 1;        ///< a row every `every` passes (0: off)
  double geometric = 0;    ///< > 1: rows at passes first, first*g, first*g^2, ...
  double first = 1;
  double every_time_s = 0; ///< > 0: also a row whenever that much solver time has passed
  /// The default schedule's rule (an experiment that sets none of every, geometric, first,
  /// every_time): besides the `every` rule, no row before the solver time reaches
  /// (evaluation time so far + the last checkpoint's) / kEvalShare, nor before the solver has run
  /// the last checkpoint's evaluation time / kEvalShare since it (evaluation: scoring, not the
  /// writing of saved iterates, whose cost follows the disk). If a checkpoint costs about
  /// what the last one did, evaluation then stays at most kEvalShare of the solver time at every
  /// row after the first (the first, at pass 0, has no solver time to compare with). Rows a
  /// budget forces are still taken. Only where rows fall changes, never a row's values.
  bool fit_evaluation = false;
  static constexpr double kEvalShare = 0.25;
  static Schedule from_json(const json& j);
};

/// `interrupted`: the parent `dualgap run` was told to stop (SIGTERM/SIGINT/SIGHUP); rerun on resume.
enum class RunStatus { running, done, budget, timeout, diverged, failed, interrupted };
inline constexpr RunStatus kRunStatuses[] = {RunStatus::running, RunStatus::done,   RunStatus::budget,
                                             RunStatus::timeout, RunStatus::diverged, RunStatus::failed,
                                             RunStatus::interrupted};
/// The word run.json's "status" holds: the one place the statuses are spelled.
DUALGAP_API const char* to_string(RunStatus s);
/// The status a run.json's word names; nullopt for any other word.
DUALGAP_API std::optional<RunStatus> run_status_from_string(std::string_view s);
/// The two finished statuses counted in words, "8 finished (0 converged, 8 stopped by a budget)":
/// what `run`, `status` and a Slurm wait print. The bare words ("0 done, 8 budget") read as
/// nothing finished when every run stopped at its budget.
DUALGAP_API std::string finished_counts(long long done, long long budget);

class DUALGAP_API RunRecorder final : public Recorder {
 public:
  RunRecorder(StopCriteria stop, Schedule schedule, OracleCounters* counters);

  /// The objective that scores every checkpoint (set before the solver runs).
  void set_objective(Objective* objective) { objective_ = objective; }
  /// Called with each checkpoint's iterate and row index while the clock is paused (saving
  /// iterates); runs inside the checkpoint, before the stop criteria.
  std::function<void(const Iterate&, std::size_t row, double passes)> on_iterate;

  bool due(double passes) const override;
  Action checkpoint(double passes, const std::function<void(Iterate&)>& fill) override;
  bool out_of_budget(double passes) const override;
  double solver_time_s() const override;
  void begin_restart(const std::string& budget, double value) override;

  /// run.json's `sampling` ({budget, values, restarts}) in sampling mode; null otherwise.
  json sampling_json() const;

  /// Called after each recorded row, with the clock paused (e.g. to save a partial run.json).
  std::function<void()> on_row;

  /// Replaces the clock (seconds, non-decreasing) that times the solver and the evaluation: a
  /// simulated clock for tests of the schedule. Call before start().
  void set_clock(std::function<double()> seconds) { clock_ = std::move(seconds); }

  void start();   ///< starts the solver clock
  void finish();  ///< stops it for good
  RunStatus status() const { return status_; }
  void set_status(RunStatus s, std::string message) { status_ = s; message_ = std::move(message); }
  const std::string& message() const { return message_; }
  bool approximate() const { return approximate_; }
  double eval_time_s() const { return eval_time_s_; }
  std::size_t rows() const { return passes_.size(); }

  /// Columnar curve as JSON (equal-length arrays, null where a value does not exist).
  json curve_json() const;
  /// Row i as a JSON object (column -> value or null), for the append-only partial log.
  json row_json(std::size_t i) const;
  /// Last values (summary).
  json summary_json() const;

 private:
  using Clock = std::chrono::steady_clock;
  double now_s() const;
  void pause();
  void resume();

  StopCriteria stop_;
  Schedule schedule_;
  OracleCounters* counters_;
  Objective* objective_ = nullptr;
  std::optional<double> first_primal_;
  std::function<double()> clock_;  ///< empty: steady_clock
  bool running_ = false;
  double started_s_ = 0;
  double accumulated_s_ = 0;
  double eval_time_s_ = 0;
  double next_due_ = 0;
  double next_due_time_s_ = 0;
  double eval_gate_s_ = 0;  ///< Schedule::fit_evaluation: no row before this solver time
  double scoring_time_s_ = 0;  ///< eval_time_s_ without the time on_iterate took (the rule's measure)
  RunStatus status_ = RunStatus::running;
  std::string message_;
  bool approximate_ = false;

  // sampling mode (begin_restart): where the current restart's clock and counters start
  bool sampling_ = false;
  bool restart_open_ = false;
  std::string budget_name_;
  double restart_time_base_ = 0;
  OracleCounters restart_base_{};
  double sampled_passes_ = 0;  ///< sum of the restarts' passes (what max_passes counts)
  double pending_budget_ = 0;
  std::vector<double> budget_;

  // columns
  std::vector<double> passes_, oracle_calls_, approx_calls_, time_, oracle_time_, eval_calls_;
  std::vector<std::optional<double>> primal_, dual_, gap_, train_error_, test_error_;
  std::vector<std::string> extra_names_;
  std::map<std::string, std::vector<std::optional<double>>> extra_;
};

}  // namespace dualgap
