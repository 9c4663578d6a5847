// AdaBoost.ECC with discrete decision stumps (Guruswami & Sahai, "Multiclass learning, boosting,
// and error-correcting codes", COLT 1999): stage-wise minimization of the pairwise exponential
// loss
//   L(f) = (1/p) sum_i sum_{l != y_i} exp(f_l(x_i) - f_{y_i}(x_i)),  p = n (K-1),
// with f_l(x) = (1/2) sum_t alpha_t mu_t(l) h_t(x), mu_t a {-1,+1} colouring of the classes and
// h_t a {-1,+1} stump. Round t: draw a colouring mu (random, balanced: floor(K/2) classes +1);
// binary weights U(i) = sum_{l: mu(l) != mu(y_i)} D(i,l) (only those pairs are affected by h);
// the oracle returns the stump of largest edge r = sum_i U(i) mu(y_i) h(x_i) / sum_i U(i);
// alpha = 1/2 log((1+r)/(1-r)) is the exact line search of L along the new term; then
// D(i,l) <- D(i,l) exp(-alpha mu(y_i) h(x_i)) for the pairs with mu(l) != mu(y_i), / Z.
// Prediction: argmax_l f_l(x). The loss is problem (2) without the l1 term (C -> infinity).
// Checkpoints hand the core the ensemble f (row t: h_t with weights alpha_t mu_t / 2); the core
// scores it with L (family boosting, loss exp_pairwise; no dual).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "dualgap/oracles/weak_learner.hpp"
#include "dualgap/plugin.hpp"
#include "dualgap/random.hpp"

namespace {

using namespace dualgap;

class AdaBoostECC final : public Solver {
 public:
  struct Options {
    double max_edge = 1.0 - 1e-10;
    static void bind(Binder<Options>& b) {
      b.field(&Options::max_edge, "max_edge", "edges are capped here so that alpha stays finite").range(0.0, 1.0);
    }
  };
  explicit AdaBoostECC(const Options& o) : max_r_(o.max_edge) {}
  /// The pairwise exponential loss L above.
  ObjectiveSpec objective(const Problem&) const override { return {"boosting", "exp_pairwise", json::object()}; }

  void solve(const Problem& pb, SolverContext& ctx) override {
    auto* oracle = dynamic_cast<WeakLearnerOracle*>(pb.oracle);
    if (!oracle) throw std::invalid_argument("adaboost_ecc: needs an oracle with the weak_learner interface");
    const Examples& tr = pb.data->train;
    if (tr.structured()) throw std::invalid_argument("adaboost_ecc: multi-class (unstructured) data only");
    const int n = static_cast<int>(tr.num_units()), K = tr.num_classes;
    if (K < 2) throw std::invalid_argument("adaboost_ecc: needs at least 2 classes");
    oracle->prepare(tr);
    // D(i,l): distribution over the pairs (i, l != y_i); D(i, y_i) = 0.
    DenseMatrix D(n, K), W = DenseMatrix::Zero(n, K);
    const double p = static_cast<double>(n) * (K - 1);
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < K; ++l) D(i, l) = l == tr.y[i] ? 0.0 : 1.0 / p;
    long t = 0;
    double r = 0;
    std::vector<int> mu(K), perm(K);
    std::iota(perm.begin(), perm.end(), 0);
    SplitMix64 rng(ctx.seed);
    std::vector<signed char> h;
    std::vector<Stump> best;
    Ensemble f;  // f_l = sum_t alpha(t, l) h_t, alpha(t, l) = alpha_t mu_t(l) / 2
    f.alpha.resize(0, K);
    auto eval = [&](Iterate& m) {
      m.ensemble = &f;
      m.set("weak_learners", static_cast<double>(t));
      m.set("edge", r);
    };
    Recorder& rec = *ctx.recorder;
    if (rec.checkpoint(0, eval) == Action::stop) return;
    for (t = 1;; ++t) {
      shuffle(perm, rng);
      for (int k = 0; k < K; ++k) mu[perm[k]] = k < K / 2 ? 1 : -1;
      double U_sum = 0;
      for (int i = 0; i < n; ++i) {
        const int yi = tr.y[i];
        double u = 0;
        for (int l = 0; l < K; ++l)
          if (mu[l] != mu[yi]) u += D(i, l);
        W(i, 0) = u * mu[yi];  // edge of column 0 = sum_i U(i) mu(y_i) h(x_i)
        U_sum += u;
      }
      oracle->best_per_class(W, best);  // only class 0 is used (the others have zero weight)
      const Stump& s = best[0];
      r = U_sum > 0 ? std::min(s.edge / U_sum, max_r_) : 0.0;
      const double alpha = r > 0 ? 0.5 * std::log((1 + r) / (1 - r)) : 0.0;
      oracle->predict(s, tr.X, h);
      double Z = 0;
      for (int i = 0; i < n; ++i) {
        const int yi = tr.y[i];
        const double down = std::exp(-alpha * mu[yi] * h[i]);
        for (int l = 0; l < K; ++l) {
          if (mu[l] != mu[yi]) D(i, l) *= down;
          Z += D(i, l);
        }
      }
      D /= Z;
      f.stumps.push_back(s);
      f.stumps.back().cls = -1;  // shared by all classes through the colouring
      f.alpha.conservativeResize(t, K);
      for (int l = 0; l < K; ++l) f.alpha(t - 1, l) = 0.5 * alpha * mu[l];
      if (rec.due(static_cast<double>(t)) &&
          rec.checkpoint(static_cast<double>(t), eval) == Action::stop)
        return;
    }
  }

 private:
  double max_r_;
};

PluginDescription describe() {
  return describe_solver<AdaBoostECC>(
      "adaboost_ecc", "1.0.0",
      "AdaBoost.ECC with discrete stumps and random balanced colourings (Guruswami & Sahai, COLT 1999)",
      {"weak_learner"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
