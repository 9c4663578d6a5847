// Chain max-oracle: argmax_y sum_u <w_{y_u}, x_u> + sum_u T[y_u][y_{u+1}] (+ Delta(y_i, y)),
// by Viterbi dynamic programming in O(U K^2). Appendix A (OCR) of Shah, Kolmogorov & Lampert,
// "A multi-plane block-coordinate Frank-Wolfe algorithm for training structural SVMs with a
// costly max-oracle", CVPR 2015. Loss: Hamming distance normalized by the word length
// (the paper's) or the Hamming count (dlib's structural_sequence_labeling_trainer).
#include <limits>
#include <stdexcept>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"

namespace {

class ChainViterbi final : public dualgap::StructuredOracle {
 public:
  explicit ChainViterbi(const dualgap::Params& p)
      : normalized_(p.get<std::string>("loss") == "normalized") {}

  bool uses_transitions() const override { return true; }

  double loss(const dualgap::Examples& ex, std::size_t i, const int* y) const override {
    const auto b = ex.unit_begin(i);
    const int U = ex.units_of(i);
    int wrong = 0;
    for (int u = 0; u < U; ++u) wrong += (y[u] != ex.y[b + u]);
    return normalized_ ? (U ? static_cast<double>(wrong) / U : 0.0) : wrong;
  }

 protected:
  void argmax(const dualgap::Examples& ex, std::size_t i, const double* unary,
              const double* T, bool loss_augmented, dualgap::Labeling& out) override {
    if (ex.has_edges())
      throw std::runtime_error("chain_viterbi: the data has graph edges; use a chain data set "
                               "(one example per sequence, no edges)");
    const int K = ex.num_classes;
    const int U = ex.units_of(i);
    if (U == 0) return;
    const int* truth = ex.y.data() + ex.unit_begin(i);
    const double per_unit = loss_augmented ? (normalized_ ? 1.0 / U : 1.0) : 0.0;
    score_.resize(static_cast<std::size_t>(K));
    next_.resize(static_cast<std::size_t>(K));
    back_.resize(static_cast<std::size_t>(U) * K);
    // score_[k]: best value of a prefix ending at the current position with label k.
    for (int k = 0; k < K; ++k) score_[k] = unary[k] + (k != truth[0] ? per_unit : 0.0);
    for (int u = 1; u < U; ++u) {
      const double* un = unary + static_cast<std::size_t>(u) * K;
      int* bp = back_.data() + static_cast<std::size_t>(u) * K;
      for (int b = 0; b < K; ++b) {
        double best = -std::numeric_limits<double>::infinity();
        int arg = 0;
        for (int a = 0; a < K; ++a) {
          const double v = score_[a] + T[a * K + b];
          if (v > best) best = v, arg = a;
        }
        next_[b] = best + un[b] + (b != truth[u] ? per_unit : 0.0);
        bp[b] = arg;
      }
      score_.swap(next_);
    }
    int k = 0;
    for (int c = 1; c < K; ++c)
      if (score_[c] > score_[k]) k = c;
    for (int u = U - 1; u >= 0; --u) {
      out.labels[static_cast<std::size_t>(u)] = k;
      if (u > 0) k = back_[static_cast<std::size_t>(u) * K + k];
    }
  }

 private:
  bool normalized_;
  std::vector<double> score_, next_;  // reused across calls: no allocation per call
  std::vector<int> back_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_plugin<ChainViterbi>(
      dualgap::Kind::oracle, "chain_viterbi", "1.0.0",
      "Chain (sequence) loss-augmented max-oracle by Viterbi (Shah et al., CVPR 2015, App. A)",
      {dualgap::choice_param("loss", "normalized", {"normalized", "count"},
                             "Hamming loss divided by the sequence length (paper) or the plain "
                             "count of wrong positions (dlib)")});
}

}  // namespace

DUALGAP_PLUGIN(describe)
