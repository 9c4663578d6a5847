// @NAME@: minimizes the structural SVM primal
//     P(w) = lambda/2 ||w||^2 + (1/n) sum_i H_i(w),
//     H_i(w) = max_y [ Delta(y_i, y) + c(y) - c(y_i) + <w, phi(x_i, y) - phi(x_i, y_i)> ]
// by stochastic subgradient descent with step 1/(lambda t) (Pegasos: Shalev-Shwartz et al.,
// ICML 2007, Algorithm 1 with one example per step; Ratliff et al., AISTATS 2007, for the
// structured case). The skeleton of `dualgap new-plugin`: correct, but slow (no dual, no
// line search); replace it with your algorithm.
//
// The contract of a solver (dualgap/solver.hpp, dualgap/plugin.hpp, dualgap/options.hpp):
//   Options holds the parameters: each member's initializer is its default, and one line of
//     bind() gives its YAML name, doc and range or choices (what `dualgap describe` prints and
//     the experiment file is checked against). Rules across parameters go in
//     Options::validate(), which `dualgap validate` runs.
//   describe_solver(..., accepts) names the oracle interfaces it works with; the core checks
//     the pairing before anything runs.
//   solve(pb, ctx) runs until the recorder answers stop (budget, target gap, NaN) or the
//     solver converges by its own rule. It never prints, never times itself for reporting and
//     never scores itself: at checkpoints it hands ctx.recorder a closure that fills an Iterate
//     (dualgap/iterate.hpp: here the joint weight vector w; a solver with a dual point also sets
//     ssvm_dual). The core computes primal, dual, gap and train/test error from it, with the
//     solver clock paused and the oracle calls made meanwhile counted as evaluation.
//   One "pass" is n oracle calls (one per training example); say so in the README if not.
//   Randomness comes from ctx.seed only (reproducible runs, common random numbers).
//   Wrapping a library that has no callback (it trains to a tolerance and returns)? Run it in
//   sampling mode instead: dualgap::run_sampled (dualgap/sampling.hpp) restarts it with a
//   growing budget and records each final model (plugins/solver/liblinear is an example).
#include <cmath>
#include <vector>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "dualgap/random.hpp"

namespace {

enum class Sampling { uniform, cyclic };

class @CLASS@ final : public dualgap::Solver {
 public:
  struct Options {
    Sampling sample = Sampling::uniform;
    static void bind(dualgap::Binder<Options>& b) {
      b.choice(&Options::sample, "sample", {{"uniform", Sampling::uniform}, {"cyclic", Sampling::cyclic}},
               "order of the examples within a pass: uniform sampling with replacement or cyclic");
    }
  };
  explicit @CLASS@(const Options& o) : o_(o) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto* oracle = dynamic_cast<dualgap::StructuredOracle*>(pb.oracle);
    if (!oracle) throw std::runtime_error("@NAME@ needs a structured oracle");
    const dualgap::Examples& train = pb.data->train;
    const std::size_t n = train.num_examples();
    const double lambda = pb.lambda;
    if (n == 0) throw std::runtime_error("@NAME@: empty training set");
    if (!(lambda > 0)) throw std::runtime_error("@NAME@: needs lambda > 0");
    const auto d = static_cast<std::size_t>(train.num_features());
    const int K = train.num_classes;
    dualgap::Vector w = dualgap::Vector::Zero(static_cast<Eigen::Index>(oracle->dim(d, K)));

    dualgap::Labeling lab;
    std::vector<double> scores;
    auto eval = [&](dualgap::Iterate& it) { it.w = &w; };  // no dual point: SSG has none

    auto& rec = *ctx.recorder;
    if (rec.checkpoint(0, eval) == dualgap::Action::stop) return;
    dualgap::SplitMix64 rng(ctx.seed);  // dualgap/random.hpp: the same stream on every platform
    std::vector<int> truth;
    std::size_t t = 0;
    for (double passes = 1;; passes += 1) {
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = o_.sample == Sampling::uniform ? rng.below(n) : k;
        ++t;
        const double eta = 1.0 / (lambda * static_cast<double>(t));
        oracle->max_oracle(train, i, w, lab, scores);
        // Subgradient of lambda/2 ||w||^2 + H_i(w): lambda w + phi(yhat) - phi(y_i).
        w *= 1.0 - eta * lambda;
        truth.assign(train.y.begin() + train.unit_begin(i), train.y.begin() + train.unit_end(i));
        oracle->add_joint_features(train, i, truth.data(), eta, w);
        oracle->add_joint_features(train, i, lab.labels.data(), -eta, w);
      }
      if (rec.due(passes) && rec.checkpoint(passes, eval) == dualgap::Action::stop) return;
    }
  }

 private:
  Options o_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<@CLASS@>(
      "@NAME@", "0.1.0",
      "Stochastic subgradient descent for structural SVMs (Shalev-Shwartz et al., ICML 2007, "
      "Algorithm 1) [dualgap new-plugin skeleton]",
      {"structured"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
