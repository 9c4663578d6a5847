// A solver that misbehaves on request, for the runner-isolation tests, and one that tries to
// report numbers of its own by every means the plugin API leaves open (behaviours lie_*).
#include <chrono>
#include <csignal>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"

namespace {
class TestSolver final : public dualgap::Solver {
 public:
  struct Options {
    std::string behaviour = "converge";
    double eval_sleep = 0.0;
    static void bind(dualgap::Binder<Options>& b) {
      b.choice(&Options::behaviour, "behaviour",
               {"converge", "crash", "throw", "loop", "nan", "budget", "lie_column", "lie_dual", "lie_model", "lie_shape"},
               "what to do");
      b.field(&Options::eval_sleep, "eval_sleep", "seconds each evaluation sleeps").min(0.0);
    }
  };
  explicit TestSolver(const Options& o) : behaviour_(o.behaviour), eval_sleep_(o.eval_sleep) {}
  bool lies() const { return behaviour_.rfind("lie_", 0) == 0; }
  // Without an oracle: the square loss of its scores (1 - x) Y, i.e. primal x^2 / 2.
  dualgap::ObjectiveSpec objective(const dualgap::Problem&) const override {
    if (lies()) return {};  // the structured oracle's: the SSVM objective
    return {"least_squares", "square", {{"ridge", 0.0}}};
  }
  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto& rec = *ctx.recorder;
    if (lies()) return lie(pb, rec);
    double x = 1.0;
    const auto& y = pb.data->train.y;
    dualgap::DenseMatrix S(static_cast<Eigen::Index>(y.size()), pb.data->train.num_classes);
    auto eval = [&](dualgap::Iterate& it) {
      if (eval_sleep_ > 0) std::this_thread::sleep_for(std::chrono::duration<double>(eval_sleep_));
      const double v = behaviour_ == "nan" && x < 0.3 ? std::numeric_limits<double>::quiet_NaN() : 1.0 - x;
      S.setZero();
      for (std::size_t i = 0; i < y.size(); ++i) S(static_cast<Eigen::Index>(i), y[i]) = v;
      it.train_scores = &S;
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
  // w = 0 has P(0) = (1/n) sum_i max_y Delta(y_i, y) (1 for the 0-1 loss) whatever is claimed.
  void lie(const dualgap::Problem& pb, dualgap::Recorder& rec) {
    auto* oracle = dynamic_cast<dualgap::StructuredOracle*>(pb.oracle);
    const dualgap::Examples& ex = pb.data->train;
    dualgap::Vector w = dualgap::Vector::Zero(static_cast<Eigen::Index>(oracle->dim(ex.num_features(), ex.num_classes)));
    dualgap::Vector elsewhere = dualgap::Vector::Ones(w.size());
    rec.checkpoint(0, [&](dualgap::Iterate& it) {
      it.w = &w;
      it.ssvm_dual = dualgap::SsvmDualPoint{nullptr, 0.0};  // D = 0: valid
    });
    rec.checkpoint(1, [&](dualgap::Iterate& it) {
      it.w = &w;
      if (behaviour_ == "lie_column") it.set("primal", 0.0);         // a column the core owns
      if (behaviour_ == "lie_dual") it.ssvm_dual = dualgap::SsvmDualPoint{nullptr, 5.0};  // D = 5 > P
      if (behaviour_ == "lie_model") it.W = nullptr, it.w = nullptr;  // nothing to score
      if (behaviour_ == "lie_shape") it.w = &elsewhere, elsewhere.resize(3);
    });
  }

  std::string behaviour_;
  double eval_sleep_;
};

dualgap::PluginDescription describe() {
  // Accepts any oracle (no pairing check): the lie_* behaviours run with a structured one.
  return dualgap::describe_solver<TestSolver>(
      "test_solver", "0.0.1", "Misbehaving solver for the runner tests (not a real solver)", {});
}
}  // namespace
DUALGAP_PLUGIN(describe)
