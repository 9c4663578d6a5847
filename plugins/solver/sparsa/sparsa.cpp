// SpaRSA for  F(W) = L(W) + lambda sum_j ||W_j:||_2  (Wright, Nowak and Figueiredo, IEEE TSP
// 2009): proximal gradient steps W+ = prox(W - G/alpha, lambda/alpha) with alpha from the
// Barzilai-Borwein rule alpha = <dG, dW>/<dW, dW> clipped to [alpha_min, alpha_max], accepted
// by the non-monotone rule F(W+) <= max_{last M} F - (sigma/2) alpha ||W+ - W||^2, otherwise
// alpha *= eta. Baseline of Blondel, Seki and Uematsu, Machine Learning 2013, Sect. 5.2.
// One recorder pass = one iteration (one full gradient plus the acceptance trials).
#include <cmath>
#include <deque>
#include <vector>

#include "sparse/sparse_common.hpp"
#include "dualgap/plugin.hpp"

namespace {

using dualgap::DenseMatrix;

class Sparsa final : public dualgap::Solver {
 public:
  struct Options {
    int M = 5;
    double sigma = 1e-5;
    double eta = 2.0;
    double alpha_min = 1e-30;
    double alpha_max = 1e30;
    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::M, "M", "memory of the non-monotone rule (1: monotone)").min(1);
      b.field(&Options::sigma, "sigma", "sufficient-decrease constant").range(0.0, 1.0);
      b.field(&Options::eta, "eta", "alpha increase factor on rejection").min(1.0 + 1e-9);
      b.field(&Options::alpha_min, "alpha_min", "smallest alpha (inverse step)").min(0.0);
      b.field(&Options::alpha_max, "alpha_max", "largest alpha (inverse step)").min(0.0);
    }
  };
  explicit Sparsa(const Options& o)
      : M_(o.M), sigma_(o.sigma), eta_(o.eta), alpha_min_(o.alpha_min), alpha_max_(o.alpha_max) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto& rec = *ctx.recorder;
    auto& oracle = dualgap::sparse::bind_oracle(pb, "sparsa");
    const double lambda = pb.lambda;
    const Eigen::Index d = oracle.num_features();
    const int K = oracle.num_classes();
    DenseMatrix W = DenseMatrix::Zero(d, K), Wn(d, K), G(d, K), Gn(d, K);
    auto eval = [&](dualgap::Iterate& it) { it.W = &W; };  // the core scores W (and leaves the oracle at W)
    if (rec.checkpoint(0, eval) == dualgap::Action::stop) return;
    double F = oracle.set_point(W) + lambda * dualgap::sparse::penalty(W);
    oracle.gradient(G);
    std::deque<double> history{F};
    double alpha = 0;
    for (Eigen::Index j = 0; j < d; ++j) alpha = std::max(alpha, oracle.block_lipschitz(j));
    alpha = std::clamp(alpha / 4, alpha_min_, alpha_max_);
    for (double passes = 1;; passes += 1) {
      const double ref = *std::max_element(history.begin(), history.end());
      double Fn = F;
      for (int ls = 0; ls < 60; ++ls) {
        Wn.noalias() = W - G / alpha;
        for (Eigen::Index j = 0; j < d; ++j)
          dualgap::sparse::group_soft_threshold(Wn.data() + j * K, K, lambda / alpha, Wn.data() + j * K);
        Fn = oracle.set_point(Wn) + lambda * dualgap::sparse::penalty(Wn);
        if (Fn <= ref - 0.5 * sigma_ * alpha * (Wn - W).squaredNorm() + 1e-12 * std::abs(ref)) break;
        alpha = std::min(alpha * eta_, alpha_max_);
      }
      oracle.gradient(Gn);  // the oracle state is at Wn
      const double ss = (Wn - W).squaredNorm();
      const double sr = ((Wn - W).array() * (Gn - G).array()).sum();
      if (ss > 0 && sr > 0) alpha = std::clamp(sr / ss, alpha_min_, alpha_max_);
      W.swap(Wn);
      G.swap(Gn);
      F = Fn;
      history.push_back(F);
      while (static_cast<int>(history.size()) > M_) history.pop_front();
      if (rec.due(passes) && rec.checkpoint(passes, eval) == dualgap::Action::stop) return;
    }
  }

 private:
  int M_;
  double sigma_, eta_, alpha_min_, alpha_max_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<Sparsa>(
      "sparsa", "1.0.0",
      "SpaRSA: Barzilai-Borwein proximal gradient with non-monotone line search (Wright et al., IEEE TSP 2009)",
      {"block_loss"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
