// A solver that misbehaves on request, for the runner-isolation tests.
#include <chrono>
#include <csignal>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "dualgap/plugin.hpp"

namespace {
class TestSolver final : public dualgap::Solver {
 public:
  explicit TestSolver(const dualgap::Params& p)
      : behaviour_(p.get<std::string>("behaviour")), eval_sleep_(p.get<double>("eval_sleep")) {}
  std::vector<std::string> accepts() const override { return {}; }
  void solve(const dualgap::Problem&, dualgap::SolverContext& ctx) override {
    auto& rec = *ctx.recorder;
    double x = 1.0;
    auto eval = [&](dualgap::Metrics& m) {
      if (eval_sleep_ > 0) std::this_thread::sleep_for(std::chrono::duration<double>(eval_sleep_));
      m.primal = x;
      m.dual = behaviour_ == "nan" && x < 0.3 ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    };
    if (rec.checkpoint(0, eval) == dualgap::Action::stop) return;
    for (double passes = 1;; passes += 1) {
      x *= 0.5;
      if (behaviour_ == "crash" && passes >= 2) std::raise(SIGSEGV);
      if (behaviour_ == "throw" && passes >= 2) throw std::runtime_error("test solver threw on purpose");
      if (behaviour_ == "loop" && passes >= 2)
        for (volatile double spin = 0;; spin = spin + 1) {
        }
      if (behaviour_ == "converge" && x < 1e-3) {
        rec.checkpoint(passes, eval);
        return;
      }
      if (rec.due(passes) && rec.checkpoint(passes, eval) == dualgap::Action::stop) return;
    }
  }

 private:
  std::string behaviour_;
  double eval_sleep_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_plugin<TestSolver>(
      dualgap::Kind::solver, "test_solver", "0.0.1", "Misbehaving solver for the runner tests (not a real solver)",
      {dualgap::choice_param("behaviour", "converge", {"converge", "crash", "throw", "loop", "nan", "budget"},
                             "what to do"),
       dualgap::real_param("eval_sleep", 0.0, "seconds each evaluation sleeps", 0.0)});
}
}  // namespace
DUALGAP_PLUGIN(describe)
