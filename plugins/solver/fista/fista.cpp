// FISTA for  F(W) = L(W) + lambda sum_j ||W_j:||_2  (Beck and Teboulle, SIAM J. Imaging
// Sciences 2009, FISTA with constant step 1/L and with backtracking), the baseline "FISTA (LS)"
// and "FISTA (CST)" of Blondel, Seki and Uematsu, Machine Learning 2013, Sect. 5.2. The
// proximal step is row-wise group soft-thresholding (eq. 4). One recorder pass = one iteration
// (one full gradient at the extrapolated point plus the backtracking trials).
#include <cmath>
#include <vector>

#include "sparse/sparse_common.hpp"
#include "dualgap/plugin.hpp"

namespace {

using dualgap::DenseMatrix;

void prox_step(const DenseMatrix& Y, const DenseMatrix& G, double L, double lambda, DenseMatrix& out) {
  const int K = static_cast<int>(Y.cols());
  out.noalias() = Y - G / L;
  for (Eigen::Index j = 0; j < Y.rows(); ++j)
    dualgap::sparse::group_soft_threshold(out.data() + j * K, K, lambda / L, out.data() + j * K);
}

class Fista final : public dualgap::Solver {
 public:
  struct Options {
    bool backtracking = true;
    double eta = 2.0;
    double L0 = 0.0;
    static void bind(dualgap::Binder<Options>& b) {
      b.choice(&Options::backtracking, "step", {{"backtracking", true}, {"constant", false}},
               "backtracking (FISTA LS) or constant 1/L with L the oracle's global Lipschitz constant (FISTA CST)");
      b.field(&Options::eta, "eta", "backtracking increase factor of L").min(1.0 + 1e-9);
      b.field(&Options::L0, "L0", "initial L for backtracking; 0: max_j K_j / 4").min(0.0);
    }
  };
  explicit Fista(const Options& o) : backtracking_(o.backtracking), eta_(o.eta), L0_(o.L0) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto& rec = *ctx.recorder;
    auto& oracle = dualgap::sparse::bind_oracle(pb, "fista");
    const double lambda = pb.lambda;
    const Eigen::Index d = oracle.num_features();
    const int K = oracle.num_classes();
    DenseMatrix W = DenseMatrix::Zero(d, K), Y = W, Wn(d, K), G(d, K), D(d, K);
    double L;
    if (!backtracking_) {
      L = oracle.global_lipschitz();
    } else if (L0_ > 0) {
      L = L0_;
    } else {
      // Start from the largest block constant / 4: backtracking only increases L.
      L = 0;
      for (Eigen::Index j = 0; j < d; ++j) L = std::max(L, oracle.block_lipschitz(j));
      L = std::max(L / 4, 1e-12);
    }
    double t = 1;
    auto eval = [&](dualgap::Iterate& it) {
      it.W = &W;  // the core scores W
      it.set("step_L", L);
    };
    if (rec.checkpoint(0, eval) == dualgap::Action::stop) return;
    for (double passes = 1;; passes += 1) {
      const double fY = oracle.set_point(Y);
      oracle.gradient(G);
      if (L <= 0) L = 1e-12;
      prox_step(Y, G, L, lambda, Wn);
      if (backtracking_) {
        for (int ls = 0; ls < 60; ++ls) {
          const double fW = oracle.set_point(Wn);
          D.noalias() = Wn - Y;
          const double q = fY + (G.array() * D.array()).sum() + 0.5 * L * D.squaredNorm();
          if (fW <= q + 1e-12 * std::abs(q)) break;
          L *= eta_;
          prox_step(Y, G, L, lambda, Wn);
        }
      }
      const double tn = 0.5 * (1 + std::sqrt(1 + 4 * t * t));
      Y = Wn + ((t - 1) / tn) * (Wn - W);
      W.swap(Wn);
      t = tn;
      if (rec.due(passes) && rec.checkpoint(passes, eval) == dualgap::Action::stop) return;
    }
  }

 private:
  bool backtracking_;
  double eta_, L0_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<Fista>(
      "fista", "1.0.0",
      "FISTA on L1/L2-regularized losses (Beck and Teboulle 2009; baseline of Blondel et al., Machine Learning 2013)",
      {"block_loss"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
