#include "run/recorder.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace dualgap {

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::running: return "running";
    case RunStatus::done: return "done";
    case RunStatus::budget: return "budget";
    case RunStatus::timeout: return "timeout";
    case RunStatus::diverged: return "diverged";
    case RunStatus::failed: return "failed";
    case RunStatus::interrupted: return "interrupted";
  }
  return "?";
}

std::optional<RunStatus> run_status_from_string(std::string_view s) {
  for (RunStatus r : kRunStatuses)
    if (s == to_string(r)) return r;
  return std::nullopt;
}

std::string finished_counts(long long done, long long budget) {
  // `done`: a stop target (gap, rel_gap) reached, or the solver's own convergence rule.
  return fmt::format("{} finished ({} converged, {} stopped by a budget)", done + budget, done, budget);
}

namespace {
std::optional<double> opt_number(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<double>();
}
json opt_json(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}
}  // namespace

StopCriteria StopCriteria::from_json(const json& j) {
  StopCriteria s;
  s.max_passes = opt_number(j, "max_passes");
  s.max_oracle_calls = opt_number(j, "max_oracle_calls");
  s.max_time_s = opt_number(j, "max_time");
  s.gap = opt_number(j, "gap");
  s.rel_gap = opt_number(j, "rel_gap");
  if (auto d = opt_number(j, "diverge")) s.diverge = *d;
  return s;
}

Schedule Schedule::from_json(const json& j) {
  Schedule s;
  if (!j.is_object()) {
    s.fit_evaluation = true;  // no record section: the default schedule
    return s;
  }
  if (j.contains("every")) s.every = j["every"].get<double>();
  if (j.contains("geometric")) {
    s.geometric = j["geometric"].get<double>();
    if (!j.contains("every")) s.every = 0;
  }
  if (j.contains("first")) s.first = j["first"].get<double>();
  if (j.contains("every_time")) s.every_time_s = j["every_time"].get<double>();
  s.fit_evaluation = !(j.contains("every") || j.contains("geometric") || j.contains("first") || j.contains("every_time"));
  return s;
}

RunRecorder::RunRecorder(StopCriteria stop, Schedule schedule, OracleCounters* counters)
    : stop_(stop), schedule_(schedule), counters_(counters) {}

double RunRecorder::now_s() const {
  if (clock_) return clock_();
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

void RunRecorder::start() {
  running_ = true;
  started_s_ = now_s();
}
void RunRecorder::pause() {
  if (!running_) return;
  accumulated_s_ += now_s() - started_s_;
  running_ = false;
}
void RunRecorder::resume() {
  if (running_) return;
  started_s_ = now_s();
  running_ = true;
}
void RunRecorder::finish() { pause(); }

double RunRecorder::solver_time_s() const { return accumulated_s_ + (running_ ? now_s() - started_s_ : 0.0); }

bool RunRecorder::out_of_budget(double passes) const {
  if (stop_.max_passes && passes >= *stop_.max_passes) return true;
  if (stop_.max_oracle_calls && counters_ &&
      static_cast<double>(counters_->exact_calls) >= *stop_.max_oracle_calls)
    return true;
  if (stop_.max_time_s && solver_time_s() >= *stop_.max_time_s) return true;
  return false;
}

void RunRecorder::begin_restart(const std::string& budget, double value) {
  if (!std::isfinite(value)) throw std::logic_error("sampling mode: budget " + budget + " is not finite");
  if (!sampling_) {
    if (!passes_.empty())
      throw std::logic_error("sampling mode: begin_restart after ordinary checkpoints; a run is sampled or not");
    sampling_ = true;
    budget_name_ = budget;
  } else if (budget != budget_name_) {
    throw std::logic_error("sampling mode: budget '" + budget + "' after budget '" + budget_name_ + "'");
  }
  if (restart_open_) throw std::logic_error("sampling mode: begin_restart twice without a checkpoint");
  if (!budget_.empty()) {
    const double last = budget_.back();
    const bool tolerance = budget == "eps";
    if (tolerance ? value > last : value < last)
      throw std::logic_error("sampling mode: budget " + budget + " = " + std::to_string(value) + " after " +
                             std::to_string(last) + " (budgets may not decrease in effort)");
  }
  restart_open_ = true;
  pending_budget_ = value;
  restart_time_base_ = solver_time_s();
  if (counters_) restart_base_ = *counters_;
}

json RunRecorder::sampling_json() const {
  if (!sampling_) return nullptr;
  return {{"budget", budget_name_},
          {"values", budget_},
          {"restarts", budget_.size()},
          {"note", "each row is a fresh run of the library with that budget: its time, passes and counters are that "
                   "run's own, not cumulative"}};
}

bool RunRecorder::due(double passes) const {
  // The clock is read only once the pass rule is met (solvers ask often).
  if (passes + 1e-12 >= next_due_ && (eval_gate_s_ <= 0 || solver_time_s() >= eval_gate_s_)) return true;
  if (schedule_.every_time_s > 0 && solver_time_s() >= next_due_time_s_) return true;
  return out_of_budget(passes);
}

Action RunRecorder::checkpoint(double passes, const std::function<void(Iterate&)>& fill) {
  pause();
  const double eval_start = now_s();
  if (!objective_) throw std::logic_error("RunRecorder: no objective set");
  Scores m;
  double keep_s = 0;  // saving the iterate: recorded as evaluation time, not the rule's measure
  const std::function<void(Iterate&)> fill_and_keep = [&](Iterate& it) {
    fill(it);
    if (!on_iterate) return;
    const double keep_start = now_s();
    on_iterate(it, passes_.size(), passes);
    keep_s = now_s() - keep_start;
  };
  if (sampling_ && !restart_open_) {
    eval_time_s_ += now_s() - eval_start;
    throw std::logic_error("sampling mode: a checkpoint without begin_restart");
  }
  // In sampling mode a row counts from its restart (restart_base_, restart_time_base_).
  const OracleCounters base = sampling_ ? restart_base_ : OracleCounters{};
  score_checkpoint(*objective_, counters_, fill_and_keep, m);

  const double t = accumulated_s_;
  passes_.push_back(passes);
  oracle_calls_.push_back(counters_ ? static_cast<double>(counters_->exact_calls - base.exact_calls) : 0.0);
  approx_calls_.push_back(counters_ ? static_cast<double>(counters_->approx_calls - base.approx_calls) : 0.0);
  eval_calls_.push_back(counters_ ? static_cast<double>(counters_->eval_calls - base.eval_calls) : 0.0);
  time_.push_back(sampling_ ? t - restart_time_base_ : t);
  oracle_time_.push_back(counters_ ? counters_->oracle_time_s - base.oracle_time_s : 0.0);
  if (sampling_) {
    budget_.push_back(pending_budget_);
    sampled_passes_ += passes;
    restart_open_ = false;
  }
  primal_.push_back(m.primal);
  dual_.push_back(m.dual);
  std::optional<double> gap;
  if (m.primal && m.dual) gap = *m.primal - *m.dual;
  gap_.push_back(gap);
  train_error_.push_back(m.train_error);
  test_error_.push_back(m.test_error);
  if (m.approximate) approximate_ = true;
  const std::size_t row = passes_.size() - 1;
  for (auto& [name, value] : m.extra) {
    auto& col = extra_[name];
    if (col.empty()) extra_names_.push_back(name);
    col.resize(row, std::nullopt);
    col.push_back(value);
  }

  // next due point
  if (schedule_.geometric > 1) {
    double next = std::max(schedule_.first, next_due_);
    while (next <= passes + 1e-12) next = next * schedule_.geometric;
    next_due_ = next;
    if (schedule_.every > 0) next_due_ = std::min(next_due_, passes + schedule_.every);
  } else if (schedule_.every > 0) {
    next_due_ = passes + schedule_.every;
  } else {
    next_due_ = passes + 1;
  }
  if (schedule_.every_time_s > 0) next_due_time_s_ = t + schedule_.every_time_s;

  Action action = Action::proceed;
  // Only a certified gap may end a run: with an approximate oracle (alpha-expansion) primal and
  // dual are estimates and the "gap" can even be negative, so only budgets stop such runs.
  const bool certified = gap.has_value() && !m.approximate;
  auto bad = [](const std::optional<double>& v) { return v && !std::isfinite(*v); };
  if (m.primal && !first_primal_) first_primal_ = *m.primal;
  const bool grew = m.primal && stop_.diverge > 0 && *first_primal_ != 0 && std::isfinite(*m.primal) &&
                    std::abs(*m.primal) > stop_.diverge * std::abs(*first_primal_);
  if (bad(m.primal) || bad(m.dual)) {
    status_ = RunStatus::diverged;
    message_ = "objective is not finite at passes " + std::to_string(passes);
    action = Action::stop;
  } else if (grew) {
    status_ = RunStatus::diverged;
    message_ = "the primal grew beyond stop.diverge = " + std::to_string(stop_.diverge) +
               " times its first value at passes " + std::to_string(passes);
    action = Action::stop;
  } else if (certified && stop_.gap && *gap <= *stop_.gap) {
    status_ = RunStatus::done;
    message_ = "reached the target gap";
    action = Action::stop;
  } else if (certified && stop_.rel_gap && *gap <= *stop_.rel_gap * std::abs(*m.primal)) {
    status_ = RunStatus::done;
    message_ = "reached the target relative gap";
    action = Action::stop;
  } else if (out_of_budget(sampling_ ? sampled_passes_ : passes)) {
    status_ = RunStatus::budget;
    message_ = "budget exhausted";
    action = Action::stop;
  }
  const double eval_s = now_s() - eval_start;
  eval_time_s_ += eval_s;
  // The default schedule: the next row waits until scoring, with one more checkpoint like this
  // one, would be kEvalShare of the solver time, and until the solver has run score_s /
  // kEvalShare since this row, so that rows stay spread rather than bunch up after a slow one
  // (sampling mode has its own schedule).
  const double score_s = eval_s - keep_s;
  scoring_time_s_ += score_s;
  if (schedule_.fit_evaluation && !sampling_)
    eval_gate_s_ = std::max((scoring_time_s_ + score_s) / Schedule::kEvalShare, t + score_s / Schedule::kEvalShare);
  if (on_row) on_row();
  if (action == Action::proceed) resume();
  return action;
}

json RunRecorder::curve_json() const {
  json c = json::object();
  auto plain = [](const std::vector<double>& v) {
    json a = json::array();
    for (double x : v) a.push_back(std::isfinite(x) ? json(x) : json(nullptr));
    return a;
  };
  auto opt = [](const std::vector<std::optional<double>>& v, std::size_t n) {
    json a = json::array();
    for (std::size_t i = 0; i < n; ++i) a.push_back(i < v.size() ? opt_json(v[i]) : json(nullptr));
    return a;
  };
  const std::size_t n = passes_.size();
  c["passes"] = plain(passes_);
  c["oracle_calls"] = plain(oracle_calls_);
  c["approx_oracle_calls"] = plain(approx_calls_);
  c["eval_oracle_calls"] = plain(eval_calls_);
  c["time"] = plain(time_);
  c["oracle_time"] = plain(oracle_time_);
  c["primal"] = opt(primal_, n);
  c["dual"] = opt(dual_, n);
  c["gap"] = opt(gap_, n);
  c["train_error"] = opt(train_error_, n);
  c["test_error"] = opt(test_error_, n);
  if (sampling_) c["budget"] = plain(budget_);
  for (auto& name : extra_names_) c[name] = opt(extra_.at(name), n);
  return c;
}

json RunRecorder::row_json(std::size_t i) const {
  auto fin = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  json r = {{"passes", fin(passes_[i])},         {"oracle_calls", fin(oracle_calls_[i])},
            {"approx_oracle_calls", fin(approx_calls_[i])}, {"eval_oracle_calls", fin(eval_calls_[i])},
            {"time", fin(time_[i])},             {"oracle_time", fin(oracle_time_[i])},
            {"primal", opt_json(primal_[i])},    {"dual", opt_json(dual_[i])},
            {"gap", opt_json(gap_[i])},          {"train_error", opt_json(train_error_[i])},
            {"test_error", opt_json(test_error_[i])}};
  if (sampling_) r["budget"] = fin(budget_[i]);
  for (auto& name : extra_names_) {
    const auto& col = extra_.at(name);
    r[name] = i < col.size() ? opt_json(col[i]) : json(nullptr);
  }
  return r;
}

json RunRecorder::summary_json() const {
  json s = json::object();
  const std::size_t n = passes_.size();
  auto last = [&](const std::vector<std::optional<double>>& v) -> json {
    return n ? opt_json(v[n - 1]) : json(nullptr);
  };
  s["rows"] = n;
  s["passes"] = n ? json(passes_.back()) : json(nullptr);
  s["oracle_calls"] = counters_ ? json(counters_->exact_calls) : json(nullptr);
  s["approx_oracle_calls"] = counters_ ? json(counters_->approx_calls) : json(nullptr);
  s["eval_oracle_calls"] = counters_ ? json(counters_->eval_calls) : json(nullptr);
  s["time"] = solver_time_s();  // in sampling mode: the sum over the restarts
  s["oracle_time"] = counters_ ? json(counters_->oracle_time_s) : json(nullptr);
  s["eval_time"] = eval_time_s_;
  s["primal"] = last(primal_);
  s["dual"] = last(dual_);
  s["gap"] = last(gap_);
  s["train_error"] = last(train_error_);
  s["test_error"] = last(test_error_);
  return s;
}

}  // namespace dualgap
