// The sparse multiclass objective (family "sparse_multiclass": any block_loss oracle).
//
//   F(W) = L(W) + lambda sum_j ||W_j:||_2,   L(W) = (1/n) sum_i l(W^T x_i, y_i)
//
// or, with ObjectiveSpec params {"penalty": "l1"} (LIBLINEAR's L1-regularized one-vs-rest
// solvers, plugins/solver/liblinear), the elementwise penalty lambda sum_{j,r} |W_jr|; its dual
// point is the same with ||G_j:||_2 replaced by max_r |G_jr| (the dual norm of the l1 norm).
//
// W is d x K; l is the oracle's loss (multiclass or multitask squared hinge, multiclass
// logistic), Blondel, Seki and Uematsu, Machine Learning 2013, eq. (2).
//
// Certified dual (Fenchel): with G = grad L(W) and theta in [0, theta_max], theta_max =
// min(1, lambda / max_j ||G_j:||_2), the point theta * grad_S L(S) is dual feasible and
// -L^*(theta grad_S L(S)) (the oracle's dual_value) is a lower bound on min F. The best theta is
// found by golden section (the dual is concave in theta); derivation in plugins/solver/bcd/README.md.
// The dual is built from W alone, so a solver hands over no certificate.
//
// Scoring sets the oracle's state to W (set_point: d evaluation calls, plus d for the
// gradient). The solvers of this family keep their state in the oracle and expect it at W after
// a checkpoint, which is where this leaves it; so that part stays on the run's oracle, on one
// thread. The test error is counted on ScoreOptions::threads threads (chunks.hpp: a sum of
// integers, the same for any thread count).
//
// Columns: max_violation (eq. (9): the largest violation of the optimality conditions of
// Proposition 1), nnz_rows (% of non-zero rows of W), test_accuracy (1 - test_error).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "dualgap/oracles/block_loss.hpp"
#include "objectives/chunks.hpp"
#include "objectives/families.hpp"

namespace dualgap {
namespace {

double row_norm(const double* w, int K) {
  double s = 0;
  for (int r = 0; r < K; ++r) s += w[r] * w[r];
  return std::sqrt(s);
}

/// Violation of Proposition 1 for one block, eq. (9).
double violation(double grad_norm, double w_norm, double lambda) {
  return w_norm == 0 ? std::max(grad_norm - lambda, 0.0) : std::abs(grad_norm - lambda);
}

/// Fraction of examples of `ex` misclassified by argmax_r x . W_:r (features beyond W ignored),
/// on up to `threads` threads in chunks of kScoreChunk examples (a count of integers: the same
/// for every thread count).
double error_rate(const Examples& ex, const DenseMatrix& W, int threads) {
  const std::size_t n = ex.num_examples();
  if (n == 0) return 0.0;
  const int K = static_cast<int>(W.cols());
  const Eigen::Index d = W.rows();
  const std::size_t chunks = score_chunks(n);
  std::vector<std::size_t> wrong(chunks, 0);
  std::vector<std::vector<double>> scratch(static_cast<std::size_t>(std::max(threads, 1)),
                                           std::vector<double>(static_cast<std::size_t>(K)));
  for_each_chunk(chunks, threads, [&](int t, std::size_t c) {
    std::vector<double>& s = scratch[static_cast<std::size_t>(t)];
    const std::size_t end = std::min(n, (c + 1) * kScoreChunk);
    for (std::size_t i = c * kScoreChunk; i < end; ++i) {
      std::fill(s.begin(), s.end(), 0.0);
      if (ex.X.is_sparse()) {
        const auto& X = ex.X.sparse();
        for (SparseMatrix::InnerIterator it(X, static_cast<Eigen::Index>(i)); it; ++it) {
          if (it.col() >= d) continue;
          const double* w = W.data() + it.col() * K;
          for (int r = 0; r < K; ++r) s[r] += it.value() * w[r];
        }
      } else {
        const auto& X = ex.X.dense();
        const Eigen::Index dd = std::min<Eigen::Index>(d, X.cols());
        for (Eigen::Index j = 0; j < dd; ++j) {
          const double x = X(static_cast<Eigen::Index>(i), j);
          if (x == 0) continue;
          const double* w = W.data() + j * K;
          for (int r = 0; r < K; ++r) s[r] += x * w[r];
        }
      }
      if (std::max_element(s.begin(), s.end()) - s.begin() != ex.y[i]) ++wrong[c];
    }
  });
  std::size_t total = 0;
  for (std::size_t c : wrong) total += c;
  return static_cast<double>(total) / static_cast<double>(n);
}

/// Best dual value over theta in [0, theta_max]: golden section plus both end points.
double best_scaled_dual(const BlockLossOracle& oracle, double theta_max) {
  double best = oracle.dual_value(theta_max);
  const double phi = 0.5 * (std::sqrt(5.0) - 1.0);
  double a = 0, b = theta_max;
  double c = b - phi * (b - a), d = a + phi * (b - a);
  double fc = oracle.dual_value(c), fd = oracle.dual_value(d);
  for (int it = 0; it < 30; ++it) {
    if (fc > fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - phi * (b - a);
      fc = oracle.dual_value(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + phi * (b - a);
      fd = oracle.dual_value(d);
    }
  }
  return std::max({best, fc, fd});
}

class SparseMulticlassObjective final : public Objective {
 public:
  SparseMulticlassObjective(const Problem& pb, BlockLossOracle& oracle, bool l1, int threads)
      : data_(*pb.data), oracle_(oracle), lambda_(pb.lambda), l1_(l1), threads_(threads) {}

  json describe() const override {
    return {{"family", "sparse_multiclass"}, {"loss", oracle_.loss_name()}, {"penalty", l1_ ? "l1" : "l1/l2"},
            {"lambda", lambda_}};
  }
  const char* model_kind() const override { return "W"; }

  void score(const Iterate& it, Scores& out) override {
    if (!it.W) throw std::runtime_error("the sparse_multiclass objective scores a d x K matrix W; the checkpoint set another model");
    const DenseMatrix& W = *it.W;
    if (oracle_.num_examples() == 0) oracle_.bind(data_.train);
    if (W.rows() != oracle_.num_features() || W.cols() != oracle_.num_classes())
      throw std::runtime_error(fmt::format("W is {} x {}; the problem has d = {} features and K = {} classes", W.rows(),
                                           W.cols(), oracle_.num_features(), oracle_.num_classes()));
    const double loss = oracle_.set_point(W);
    G_.resize(W.rows(), W.cols());
    oracle_.gradient(G_);
    const int K = static_cast<int>(W.cols());
    double max_grad_norm = 0, max_violation = 0, penalty = 0;
    Eigen::Index nnz = 0;
    for (Eigen::Index j = 0; j < W.rows(); ++j) {
      if (l1_) {  // every entry is its own block
        for (int r = 0; r < K; ++r) {
          const double gn = std::abs(G_(j, r)), wn = std::abs(W(j, r));
          max_grad_norm = std::max(max_grad_norm, gn);
          max_violation = std::max(max_violation, violation(gn, wn, lambda_));
          penalty += wn;
        }
      } else {
        const double gn = row_norm(G_.data() + j * K, K);
        const double wn = row_norm(W.data() + j * K, K);
        max_grad_norm = std::max(max_grad_norm, gn);
        max_violation = std::max(max_violation, violation(gn, wn, lambda_));
        penalty += wn;
      }
      nnz += std::any_of(W.data() + j * K, W.data() + (j + 1) * K, [](double v) { return v != 0; });
    }
    out.primal = loss + lambda_ * penalty;
    // Dual point theta * grad_S L(S), feasible when theta * ||G_j:|| <= lambda for every j
    // (theta * |G_jr| <= lambda for every entry with the l1 penalty).
    const double theta_max = max_grad_norm > lambda_ ? lambda_ / max_grad_norm : 1.0;
    if (lambda_ > 0) out.dual = best_scaled_dual(oracle_, theta_max);
    out.train_error = oracle_.train_error();
    if (data_.test.num_examples() > 0) {
      out.test_error = error_rate(data_.test, W, threads_);
      out.set("test_accuracy", 1.0 - *out.test_error);
    }
    out.set("nnz_rows", W.rows() ? 100.0 * static_cast<double>(nnz) / static_cast<double>(W.rows()) : 0.0);
    out.set("max_violation", max_violation);
  }

 private:
  const Data& data_;
  BlockLossOracle& oracle_;
  double lambda_;
  bool l1_;
  int threads_;  ///< for the test error; the rest is the oracle's (the solver's state lives in it)
  DenseMatrix G_;
};

}  // namespace

std::unique_ptr<Objective> make_sparse_multiclass_objective(const Problem& pb, const ObjectiveSpec& spec,
                                                            const ScoreOptions& opt) {
  auto* oracle = dynamic_cast<BlockLossOracle*>(pb.oracle);
  if (!oracle) throw std::runtime_error("the sparse_multiclass objective needs a block_loss oracle");
  if (!spec.loss.empty() && spec.loss != oracle->loss_name())
    throw std::runtime_error("the solver asked for loss '" + spec.loss + "' but the oracle implements '" +
                             oracle->loss_name() + "'");
  const std::string penalty = spec.params.is_object() ? spec.params.value("penalty", std::string("l1/l2")) : "l1/l2";
  if (penalty != "l1/l2" && penalty != "l1")
    throw std::runtime_error("the sparse_multiclass objective has penalty 'l1/l2' or 'l1', not '" + penalty + "'");
  return std::make_unique<SparseMulticlassObjective>(pb, *oracle, penalty == "l1", opt.threads);
}

}  // namespace dualgap
