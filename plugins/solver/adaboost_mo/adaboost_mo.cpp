// AdaBoost.MO with discrete decision stumps: Algorithm AdaBoost.MO (Sec. 9, "Using output
// codes") of Schapire & Singer (1999), "Improved boosting algorithms using confidence-rated
// predictions", Machine Learning 37. An output code M in {-1,+1}^{K x L} relabels example i as
// L binary labels M(y_i, :); AdaBoost.MH on those labels minimizes
//   P(f) = (1/(nL)) sum_i sum_l exp(-M(y_i, l) f_l(x_i)),   f_l(x) = sum_t alpha_t h_t(x, l),
// stage-wise (P = prod_t Z_t), and a class is predicted by loss-based decoding,
//   H(x) = argmin_k sum_l exp(-M(k, l) f_l(x)).
// Weak hypotheses h_t(x, l) = phi_{t,l}(x): one {-1,+1} stump per code column per round ("a
// different set of weak classifiers for each class", as the MultiBoost-CW paper describes the
// Ada.MO it compares with). Code: one-vs-all (L = K, M(k, l) = +1 iff k = l) by default, or a
// random dense code (Allwein, Schapire & Singer 2000: L = ceil(10 log2 K) entries +-1 uniform,
// the best of 1000 draws by minimum row distance). The code is drawn from the parameter
// code_seed, not from the run's seed: the code defines the objective, which the core builds
// before the solver runs and must rebuild to re-score saved iterates, and repeats of one
// experiment must minimize the same objective to be compared.
// Checkpoints hand the core the ensemble f with L columns (row (t, l): phi_{t,l} with weight
// alpha_t in column l); the core scores it with P (family boosting, loss exp_code, params
// {code: M}; no dual) and its errors by loss-based decoding.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "dualgap/oracles/weak_learner.hpp"
#include "dualgap/plugin.hpp"
#include "dualgap/random.hpp"

namespace {

using namespace dualgap;

/// Number of rows in which two code words differ, minimized over all pairs of classes.
int min_row_distance(const DenseMatrix& M) {
  int best = static_cast<int>(M.cols());
  for (Eigen::Index a = 0; a < M.rows(); ++a)
    for (Eigen::Index b = a + 1; b < M.rows(); ++b) {
      int d = 0;
      for (Eigen::Index l = 0; l < M.cols(); ++l) d += M(a, l) != M(b, l);
      best = std::min(best, d);
    }
  return best;
}

bool has_constant_column(const DenseMatrix& M) {
  for (Eigen::Index l = 0; l < M.cols(); ++l)
    if ((M.col(l).array() == M(0, l)).all()) return true;
  return false;
}

class AdaBoostMO final : public Solver {
 public:
  struct Options {
    bool random = false;
    int code_length = 0;
    std::int64_t code_seed = 0;
    double max_edge = 1.0 - 1e-10;
    static void bind(Binder<Options>& b) {
      b.choice(&Options::random, "code", {{"one_vs_all", false}, {"random_dense", true}},
               "output code: one-vs-all (L = K), or a random dense {-1,+1} code");
      b.field(&Options::code_length, "code_length", "L of the random dense code; 0: ceil(10 log2 K)").min(0);
      b.field(&Options::code_seed, "code_seed", "seed of the random dense code (the code defines the objective)")
          .min(0);
      b.field(&Options::max_edge, "max_edge", "edges are capped here so that alpha stays finite").range(0.0, 1.0);
    }
  };
  explicit AdaBoostMO(const Options& o) : o_(o) {
    if (!o.random && o.code_length != 0)
      throw std::invalid_argument("adaboost_mo: code_length applies to code: random_dense (one_vs_all has L = K)");
  }

  /// The exponential loss of the code's binary problems, P above, with the code matrix.
  ObjectiveSpec objective(const Problem& pb) const override {
    const DenseMatrix M = code(pb.data->train.num_classes);
    json rows = json::array();
    for (Eigen::Index k = 0; k < M.rows(); ++k) {
      json row = json::array();
      for (Eigen::Index l = 0; l < M.cols(); ++l) row.push_back(static_cast<int>(M(k, l)));
      rows.push_back(std::move(row));
    }
    return {"boosting", "exp_code", {{"code", std::move(rows)}}};
  }

  /// The K x L output code (deterministic in K and the options).
  DenseMatrix code(int K) const {
    if (K < 2) throw std::invalid_argument("adaboost_mo: needs at least 2 classes");
    if (!o_.random) {
      DenseMatrix M = -DenseMatrix::Ones(K, K);
      M.diagonal().setOnes();
      return M;
    }
    const int L = o_.code_length > 0 ? o_.code_length : static_cast<int>(std::ceil(10 * std::log2(K) - 1e-9));
    // Allwein et al. keep the best of many random codes: rows far apart (a decoding error needs
    // many wrong binary learners) and no constant column (its learner separates nothing).
    DenseMatrix best;
    int best_distance = 0;
    for (std::uint64_t attempt = 0; attempt < 1000; ++attempt) {
      SplitMix64 rng(derive_seed(static_cast<std::uint64_t>(o_.code_seed), "adaboost_mo.code", attempt));
      DenseMatrix M(K, L);
      for (int k = 0; k < K; ++k)
        for (int l = 0; l < L; ++l) M(k, l) = (rng.next() >> 63) != 0 ? 1.0 : -1.0;
      if (has_constant_column(M)) continue;
      const int d = min_row_distance(M);
      if (d > best_distance) best = std::move(M), best_distance = d;
    }
    if (best_distance == 0)
      throw std::invalid_argument("adaboost_mo: no random code of length " + std::to_string(L) + " for " +
                                  std::to_string(K) +
                                  " classes has distinct rows and no constant column in 1000 draws; raise code_length");
    return best;
  }

  void solve(const Problem& pb, SolverContext& ctx) override {
    auto* oracle = dynamic_cast<WeakLearnerOracle*>(pb.oracle);
    if (!oracle) throw std::invalid_argument("adaboost_mo: needs an oracle with the weak_learner interface");
    const Examples& tr = pb.data->train;
    if (tr.structured()) throw std::invalid_argument("adaboost_mo: multi-class (unstructured) data only");
    const int n = static_cast<int>(tr.num_units()), K = tr.num_classes;
    const DenseMatrix M = code(K);
    const int L = static_cast<int>(M.cols());
    oracle->prepare(tr);
    // Given (x_i, y_i) and the code, relabel: Y(i, l) = M(y_i, l). Initialize D_1(i, l) = 1/(nL).
    DenseMatrix D = DenseMatrix::Constant(n, L, 1.0 / (static_cast<double>(n) * L));
    // The oracle takes n x K weight tables (its contract), so the L columns go in blocks of K,
    // one exact call per block (zero padding in the last); one call per round for one-vs-all.
    DenseMatrix W(n, K);
    std::vector<Stump> best, phi(static_cast<std::size_t>(L));
    std::vector<std::vector<signed char>> h(static_cast<std::size_t>(L));
    long t = 0;
    double r = 0;
    Ensemble f;  // f_l = sum_t alpha_t phi_{t,l}: row (t, l) holds alpha_t in column l only
    f.alpha.resize(0, L);
    auto eval = [&](Iterate& m) {
      m.ensemble = &f;
      m.set("weak_learners", static_cast<double>(f.stumps.size()));
      m.set("edge", r);
    };
    Recorder& rec = *ctx.recorder;
    if (rec.checkpoint(0, eval) == Action::stop) return;
    for (t = 1;; ++t) {
      // Train the weak learner using D_t: h_t(x, l) = phi_l(x) maximizes
      // r_t = sum_{i,l} D_t(i, l) Y(i, l) h_t(x_i, l) column by column, since the columns'
      // stumps are chosen independently: phi_l is the best stump for the weights D(:, l) Y(:, l).
      r = 0;
      for (int b = 0; b < L; b += K) {
        for (int i = 0; i < n; ++i)
          for (int c = 0; c < K; ++c) W(i, c) = b + c < L ? D(i, b + c) * M(tr.y[i], b + c) : 0.0;
        oracle->best_per_class(W, best);
        for (int c = 0; c < K && b + c < L; ++c) {
          phi[b + c] = best[c];
          phi[b + c].cls = b + c;  // the code column it was chosen for
          r += best[c].edge;
        }
      }
      // Choose alpha_t: for h in {-1,+1}, Z_t = (1-r)/2 e^alpha + (1+r)/2 e^-alpha is minimized at
      // alpha_t = 1/2 ln((1+r)/(1-r)) (Sec. 3.1), Z_t = sqrt(1 - r^2). Capping r keeps it finite.
      const double r_used = std::min(r, o_.max_edge);
      const double alpha = r_used > 0 ? 0.5 * std::log((1 + r_used) / (1 - r_used)) : 0.0;
      // Update D_{t+1}(i, l) = D_t(i, l) exp(-alpha_t Y(i, l) h_t(x_i, l)) / Z_t.
      double Z = 0;
      for (int l = 0; l < L; ++l) {
        oracle->predict(phi[l], tr.X, h[l]);
        for (int i = 0; i < n; ++i) {
          D(i, l) *= std::exp(-alpha * M(tr.y[i], l) * h[l][i]);
          Z += D(i, l);
        }
      }
      D /= Z;
      const Eigen::Index rows = f.alpha.rows();
      f.alpha.conservativeResize(rows + L, L);
      f.alpha.bottomRows(L).setZero();
      for (int l = 0; l < L; ++l) {
        f.stumps.push_back(phi[l]);
        f.alpha(rows + l, l) = alpha;
      }
      if (r <= 0) {  // no stump has an edge on any column: D is final
        rec.checkpoint(static_cast<double>(t), eval);
        return;
      }
      if (rec.due(static_cast<double>(t)) &&
          rec.checkpoint(static_cast<double>(t), eval) == Action::stop)
        return;
    }
  }

 private:
  Options o_;
};

PluginDescription describe() {
  return describe_solver<AdaBoostMO>(
      "adaboost_mo", "1.0.0",
      "AdaBoost.MO with discrete stumps per code column and loss-based decoding (Schapire & Singer, Machine "
      "Learning 1999)",
      {"weak_learner"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
