// Oracle base class: the counting and timing every oracle call goes through.
//
// Design: each oracle interface (structured max-oracle, weak learner, block loss, ...) is an
// abstract class deriving from Oracle, with *public non-virtual* entry points that open a
// CallScope and then call a *protected virtual* implementation. Solvers can only reach the
// counted entry points, so a solver cannot forget to count (non-virtual interface idiom: no
// counting proxy object wraps the oracle, so there is no second object and no extra virtual
// call). The runner attaches one OracleCounters per run. A solver that calls an oracle from
// several threads gives each worker its own oracle object (SolverContext::make_oracle) with its
// own counters and adds them to the run's counters (OracleCounters::add) before the recorder
// reads them.
//
// While the recorder evaluates a checkpoint, `evaluating` is set: calls made then (e.g. the n
// max-oracle calls of the SSVM primal) are counted as evaluation, not training, and their time
// is excluded from the solver clock by the recorder.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "dualgap/plugin_object.hpp"

namespace dualgap {

struct OracleCounters {
  std::int64_t exact_calls = 0;        ///< exact oracle calls made by training
  std::int64_t approx_calls = 0;       ///< approximate (cached, working-set) calls by training
  std::int64_t eval_calls = 0;         ///< calls made while evaluating a checkpoint
  double oracle_time_s = 0;            ///< time inside exact oracle calls, training only
  double approx_time_s = 0;            ///< time inside approximate calls, training only
  double eval_oracle_time_s = 0;       ///< time inside calls made by evaluation
  bool evaluating = false;

  /// Adds the counts and times of `other` (a worker thread's counters, merged by a threaded
  /// solver after each parallel section: oracle time becomes the sum over threads).
  void add(const OracleCounters& other) {
    exact_calls += other.exact_calls;
    approx_calls += other.approx_calls;
    eval_calls += other.eval_calls;
    oracle_time_s += other.oracle_time_s;
    approx_time_s += other.approx_time_s;
    eval_oracle_time_s += other.eval_oracle_time_s;
  }
};

enum class CallKind { exact, approximate };

class DUALGAP_API Oracle : public PluginObject {
 public:
  // The interfaces an oracle implements are data of its plugin description
  // (PluginDescription::interfaces, filled by describe_oracle from the interface class's static
  // interfaces()), so that the core can pair solvers and oracles without creating objects.

  void attach_counters(OracleCounters* counters) { counters_ = counters; }
  OracleCounters* counters() const { return counters_; }

  /// Counts `calls` calls of `kind` without timing them: for a solver's calls too short to time
  /// one by one (two clock reads cost more than the call: bcfw's steps on a block's remaining
  /// classes score two or three classes). Their time stays in the solver's time; they add
  /// nothing to oracle_time_s / approx_time_s. Calls during evaluation count as evaluation.
  void count_untimed(CallKind kind, std::int64_t calls = 1) const {
    if (!counters_) return;
    if (counters_->evaluating) counters_->eval_calls += calls;
    else if (kind == CallKind::exact) counters_->exact_calls += calls;
    else counters_->approx_calls += calls;
  }

  /// Counts one call and times it (RAII). Use in the public entry points of an interface.
  class CallScope {
   public:
    CallScope(const Oracle& oracle, CallKind kind)
        : c_(oracle.counters_), kind_(kind), start_(std::chrono::steady_clock::now()) {}
    ~CallScope() {
      if (!c_) return;
      const double dt =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if (c_->evaluating) {
        ++c_->eval_calls;
        c_->eval_oracle_time_s += dt;
      } else if (kind_ == CallKind::exact) {
        ++c_->exact_calls;
        c_->oracle_time_s += dt;
      } else {
        ++c_->approx_calls;
        c_->approx_time_s += dt;
      }
    }
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;

   private:
    OracleCounters* c_;
    CallKind kind_;
    std::chrono::steady_clock::time_point start_;
  };

 private:
  OracleCounters* counters_ = nullptr;
};

}  // namespace dualgap
