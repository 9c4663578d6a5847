// AdaBoost.MH with discrete vote stumps: minimizes the exponential Hamming loss
//   (1/(nK)) sum_i sum_l exp(-Y(i,l) f_l(x_i)),  Y(i,l) = +1 if l = y_i else -1,
// stage-wise, with weak learners h(x, l) = v_l phi(x), phi a {-1,+1} decision stump and v a
// {-1,+1} vote vector (Schapire & Singer, "Improved boosting algorithms using confidence-rated
// predictions", Machine Learning 1999, Fig. 1 / Sec. 7 with discrete h; vote vectors as in Kegl
// & Busa-Fekete, ICML 2009). Each round: the oracle returns phi maximizing the edge
// gamma = sum_l |sum_i D(i,l) Y(i,l) phi(x_i)| with v_l the sign of each term;
// alpha = 1/2 log((1+gamma)/(1-gamma)); D(i,l) <- D(i,l) exp(-alpha Y(i,l) v_l phi(x_i)) / Z.
// Prediction: argmax_l f_l(x). Checkpoints hand the core the ensemble f (row t: phi_t with
// weights alpha_t v_t); the core scores it with the loss above (family boosting, loss
// exp_hamming: the primal is prod_t Z_t, no dual: the loss is not problem (2)).
#include <cmath>

#include "dualgap/oracles/weak_learner.hpp"
#include "dualgap/plugin.hpp"

namespace {

using namespace dualgap;

class AdaBoostMH final : public Solver {
 public:
  struct Options {
    bool balanced = false;
    double max_edge = 1.0 - 1e-10;
    static void bind(Binder<Options>& b) {
      b.choice(&Options::balanced, "init", {{"uniform", false}, {"balanced", true}},
               "initial weights: uniform 1/(nK), or half the mass on the true labels");
      b.field(&Options::max_edge, "max_edge", "edges are capped here so that alpha stays finite").range(0.0, 1.0);
    }
  };
  explicit AdaBoostMH(const Options& o) : balanced_(o.balanced), max_gamma_(o.max_edge) {}
  /// The exponential Hamming loss under the initial distribution D_0 (= prod_t Z_t).
  ObjectiveSpec objective(const Problem&) const override {
    return {"boosting", "exp_hamming", {{"weights", balanced_ ? "balanced" : "uniform"}}};
  }

  void solve(const Problem& pb, SolverContext& ctx) override {
    auto* oracle = dynamic_cast<WeakLearnerOracle*>(pb.oracle);
    if (!oracle) throw std::invalid_argument("adaboost_mh: needs an oracle with the weak_learner interface");
    const Examples& tr = pb.data->train;
    if (tr.structured()) throw std::invalid_argument("adaboost_mh: multi-class (unstructured) data only");
    oracle->prepare(tr);
    const int n = static_cast<int>(tr.num_units()), K = tr.num_classes;
    DenseMatrix D(n, K), W(n, K);
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < K; ++l)
        D(i, l) = !balanced_ ? 1.0 / (static_cast<double>(n) * K)
                  : l == tr.y[i] ? 0.5 / n
                                 : 0.5 / (static_cast<double>(n) * (K - 1));
    long t = 0;
    double gamma = 0;
    std::vector<signed char> h;
    std::vector<int> votes;
    Stump s;
    Ensemble f;  // f_l = sum_t alpha(t, l) phi_t, alpha(t, l) = alpha_t v_t(l)
    f.alpha.resize(0, K);
    auto eval = [&](Iterate& m) {
      m.ensemble = &f;
      m.set("weak_learners", static_cast<double>(t));
      m.set("edge", gamma);
    };
    Recorder& rec = *ctx.recorder;
    if (rec.checkpoint(0, eval) == Action::stop) return;
    for (t = 1;; ++t) {
      for (int i = 0; i < n; ++i)
        for (int l = 0; l < K; ++l) W(i, l) = l == tr.y[i] ? D(i, l) : -D(i, l);
      oracle->best_vote(W, s, votes);
      gamma = std::min(s.edge, max_gamma_);
      const double alpha = 0.5 * std::log((1 + gamma) / (1 - gamma));
      oracle->predict(s, tr.X, h);
      double Z = 0;
      for (int i = 0; i < n; ++i)
        for (int l = 0; l < K; ++l) {
          const double yl = l == tr.y[i] ? 1.0 : -1.0;
          D(i, l) *= std::exp(-alpha * yl * votes[l] * h[i]);
          Z += D(i, l);
        }
      D /= Z;
      f.stumps.push_back(s);
      f.alpha.conservativeResize(t, K);
      for (int l = 0; l < K; ++l) f.alpha(t - 1, l) = alpha * votes[l];
      if (s.edge <= 0) {  // no weak learner beats chance: converged
        rec.checkpoint(static_cast<double>(t), eval);
        return;
      }
      if (rec.due(static_cast<double>(t)) &&
          rec.checkpoint(static_cast<double>(t), eval) == Action::stop)
        return;
    }
  }

 private:
  bool balanced_;
  double max_gamma_;
};

PluginDescription describe() {
  return describe_solver<AdaBoostMH>("adaboost_mh", "1.0.0",
                                     "AdaBoost.MH with discrete vote stumps (Schapire & Singer, Machine Learning 1999)",
                                     {"weak_learner"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
