// dlib's chain structural SVM on dualgap's chain data (chain_viterbi, loss count).
//
// dlib's structural_svm_problem minimizes h(w) = 1/2 ||w||^2 + C (1/n) sum_i H_i(w) (its risk
// averages over the samples); the sequence problem's loss is the number of mislabeled
// positions (per-label loss 1, the trainer's default). dualgap's P(w) = lambda/2 ||w||^2 +
// (1/n) sum_i H_i(w) with the count loss is lambda h(w) for C = 1/lambda. The feature extractor
// below produces dualgap's joint feature map in its index layout (structured.hpp: unary
// x_u (x) e_{y_u} at k*d + j, transition (y_{u-1}, y_u) at K*d + a*K + b, no bias), so dlib's
// w is handed to the core as it is.
//
// train() is the body of structural_sequence_labeling_trainer::train (dlib 19.24) with the
// trainer's defaults (cache of 5 labelings per sample, max_iterations 10000, per-label loss
// 1, default oca, no non-negative weights), written out so that oca's objective and its
// iteration count can be read.
#include <dlib/svm_threaded.h>

#include "oca_adapter.hpp"
#include "peers.hpp"

namespace dlib_ssvm {
namespace {

using Unit = std::vector<std::pair<unsigned long, double>>;  // non-zero features of one position

struct ChainFeatures {
  typedef std::vector<Unit> sequence_type;
  unsigned long d = 0, K = 0;
  unsigned long num_features() const { return d * K + K * K; }
  unsigned long order() const { return 1; }
  unsigned long num_labels() const { return K; }
  template <typename feature_setter, typename EXP>
  void get_features(feature_setter& set_feature, const sequence_type& x, const dlib::matrix_exp<EXP>& y,
                    unsigned long position) const {
    const unsigned long k = y(0);  // label at `position`; y(1) is the previous one
    for (const auto& [j, v] : x[position]) set_feature(k * d + j, v);
    if (y.size() > 1) set_feature(d * K + y(1) * K + k);
  }
};
void serialize(const ChainFeatures&, std::ostream&) {}
void deserialize(ChainFeatures&, std::istream&) {}

class SequencePeer final : public Peer {
 public:
  SequencePeer(const dualgap::Examples& ex, double C, unsigned long threads) : C_(C), threads_(threads) {
    fe_.d = static_cast<unsigned long>(ex.num_features());
    fe_.K = static_cast<unsigned long>(ex.num_classes);
    const std::size_t n = ex.num_examples();
    x_.resize(n);
    y_.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      for (auto u = ex.unit_begin(i); u < ex.unit_end(i); ++u) {
        Unit unit;
        if (ex.X.is_sparse()) {
          for (dualgap::SparseMatrix::InnerIterator it(ex.X.sparse(), u); it; ++it)
            if (it.value() != 0) unit.emplace_back(static_cast<unsigned long>(it.col()), it.value());
        } else {
          const auto& X = ex.X.dense();
          for (Eigen::Index j = 0; j < X.cols(); ++j)
            if (X(u, j) != 0) unit.emplace_back(static_cast<unsigned long>(j), X(u, j));
        }
        x_[i].push_back(std::move(unit));
        y_[i].push_back(static_cast<unsigned long>(ex.y[static_cast<std::size_t>(u)]));
      }
  }

  Trained train(double eps) override {
    dlib::structural_svm_sequence_labeling_problem<ChainFeatures> prob(x_, y_, fe_, threads_);
    prob.set_epsilon(eps);
    prob.set_max_iterations(10000);
    prob.set_c(C_);
    prob.set_max_cache_size(5);
    for (unsigned long k = 0; k < fe_.K; ++k) prob.set_loss(k, 1);
    OcaAdapter counted(prob, 0);
    column w;
    dlib::oca solver;
    Trained t;
    t.objective = solver(counted, w, dlib::num_nonnegative_weights(fe_));
    t.risk_evals = static_cast<double>(counted.risk_evals);
    t.w.resize(w.size());
    for (long k = 0; k < w.size(); ++k) t.w[k] = w(k);
    return t;
  }

 private:
  ChainFeatures fe_;
  std::vector<ChainFeatures::sequence_type> x_;
  std::vector<std::vector<unsigned long>> y_;
  double C_;
  unsigned long threads_;
};

}  // namespace

std::unique_ptr<Peer> make_sequence_peer(const dualgap::Examples& ex, double C, unsigned long threads) {
  return std::make_unique<SequencePeer>(ex, C, threads);
}

}  // namespace dlib_ssvm
