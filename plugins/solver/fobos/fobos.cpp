// FOBOS (Duchi and Singer, JMLR 2009) for  F(W) = L(W) + lambda sum_j ||W_j:||_2: stochastic
// proximal subgradient steps on one example at a time,
//   W <- prox_{eta_t lambda R}(W - eta_t x_i g_i^T),  g_i = dl(s_i, y_i)/ds,  eta_t = eta0/sqrt(t),
// the baseline of Blondel, Seki and Uematsu, Machine Learning 2013, Sect. 5.2. Rows that x_i
// does not touch only shrink (their direction is unchanged), so their proximal steps are applied
// lazily: a row records the cumulative shrink sum_k eta_k lambda at its last update and catches
// up when next touched or at a checkpoint. One step costs O(nnz_i K), not O(d K).
// One recorder pass = one epoch (n examples in a random order). Oracle calls = examples.
#include <cmath>
#include <numeric>
#include <vector>

#include "sparse/sparse_common.hpp"
#include "dualgap/plugin.hpp"
#include "dualgap/random.hpp"

namespace {

using dualgap::DenseMatrix;

class Fobos final : public dualgap::Solver {
 public:
  struct Options {
    double eta0 = 0.01;
    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::eta0, "eta0", "initial step; the paper picks it from 1e-3..1e3 on held-out data").min(0.0);
    }
  };
  explicit Fobos(const Options& o) : eta0_(o.eta0) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto& rec = *ctx.recorder;
    auto& oracle = dualgap::sparse::bind_oracle(pb, "fobos");
    const double lambda = pb.lambda;
    const Eigen::Index n = oracle.num_examples(), d = oracle.num_features();
    const int K = oracle.num_classes();
    const auto& X = oracle.csr();
    const int* rp = X.outerIndexPtr();
    const int* ri = X.innerIndexPtr();
    const double* rv = X.valuePtr();
    DenseMatrix W = DenseMatrix::Zero(d, K);
    std::vector<double> last(static_cast<std::size_t>(d), 0.0);  // cumulative shrink applied
    double cum = 0;                                               // sum_k eta_k lambda so far
    std::vector<double> s(K), g(K);
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    dualgap::SplitMix64 rng(ctx.seed);

    // Applies the pending shrink of row j: ||W_j|| <- max(||W_j|| - (cum - last_j), 0).
    auto catch_up = [&](Eigen::Index j) {
      const double pending = cum - last[j];
      if (pending <= 0) return;
      last[j] = cum;
      double* w = W.data() + j * K;
      dualgap::sparse::group_soft_threshold(w, K, pending, w);
    };
    auto eval = [&](dualgap::Iterate& it) {
      for (Eigen::Index j = 0; j < d; ++j) catch_up(j);  // lazy penalty steps owed to every row
      it.W = &W;                                          // the core scores W
    };
    if (rec.checkpoint(0, eval) == dualgap::Action::stop) return;
    double t = 0;
    for (double passes = 1;; passes += 1) {
      dualgap::shuffle(order, rng);
      for (Eigen::Index i : order) {
        t += 1;
        const double eta = eta0_ / std::sqrt(t);
        std::fill(s.begin(), s.end(), 0.0);
        for (int k = rp[i]; k < rp[i + 1]; ++k) {
          const Eigen::Index j = ri[k];
          catch_up(j);
          const double x = rv[k];
          const double* w = W.data() + j * K;
          for (int r = 0; r < K; ++r) s[r] += x * w[r];
        }
        oracle.example_gradient(i, s.data(), g.data());
        cum += eta * lambda;
        for (int k = rp[i]; k < rp[i + 1]; ++k) {
          const Eigen::Index j = ri[k];
          const double ex = eta * rv[k];
          double* w = W.data() + j * K;
          for (int r = 0; r < K; ++r) w[r] -= ex * g[r];
          dualgap::sparse::group_soft_threshold(w, K, eta * lambda, w);
          last[j] = cum;
        }
      }
      if (rec.due(passes) && rec.checkpoint(passes, eval) == dualgap::Action::stop) return;
    }
  }

 private:
  double eta0_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<Fobos>(
      "fobos", "1.0.0", "FOBOS stochastic proximal subgradient, step eta0/sqrt(t) (Duchi and Singer, JMLR 2009)",
      {"block_loss"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
