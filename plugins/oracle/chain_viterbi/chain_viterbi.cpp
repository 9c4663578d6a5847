// Chain max-oracle: argmax_y sum_u <w_{y_u}, x_u> + sum_u T[y_u][y_{u+1}] (+ Delta(y_i, y)),
// by Viterbi dynamic programming in O(U K^2). Appendix A (OCR) of Shah, Kolmogorov & Lampert,
// "A multi-plane block-coordinate Frank-Wolfe algorithm for training structural SVMs with a
// costly max-oracle", CVPR 2015. Loss: Hamming distance normalized by the word length
// (the paper's) or the Hamming count (dlib's structural_sequence_labeling_trainer).
#include <cstddef>
#include <stdexcept>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "simd/clones.hpp"

namespace {

// out[b] = max_a prev[a] + T[a*K + b] for b < K. The loop over b is innermost: contiguous
// rows of T, a max without a branch, so the compiler vectorizes it (with AVX2, four labels per
// instruction instead of two: simd/clones.hpp).
DUALGAP_SIMD_CLONES void max_plus(int K, const double* __restrict prev, const double* __restrict T,
                                  double* __restrict out) {
  for (int b = 0; b < K; ++b) out[b] = prev[0] + T[b];
  for (int a = 1; a < K; ++a) {
    const double pa = prev[a];
    const double* __restrict Ta = T + static_cast<std::size_t>(a) * K;
    for (int b = 0; b < K; ++b) {
      const double v = pa + Ta[b], o = out[b];
      out[b] = v > o ? v : o;
    }
  }
}

class ChainViterbi final : public dualgap::StructuredOracle {
 public:
  struct Options {
    bool normalized = true;
    static void bind(dualgap::Binder<Options>& b) {
      b.choice(&Options::normalized, "loss", {{"normalized", true}, {"count", false}},
               "Hamming loss divided by the sequence length (paper) or the plain count of wrong positions (dlib)");
    }
    // Chains only (the core pairs a graph example's units by its edges, which Viterbi does not
    // see): refused when the experiment is validated, not at the first oracle call of a run.
    bool validate_data(const dualgap::DataShape& data, dualgap::ParamIssue* issue) const {
      if (!data.edges) return true;
      *issue = {"", "needs sequence data (one example per sequence, no edges); this data has graph examples: use "
                    "graph_cut or potts_expansion"};
      return false;
    }
  };
  explicit ChainViterbi(const Options& o) : normalized_(o.normalized) {}

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
    // V[u*K + k]: best value of a prefix ending at position u with label k. Forward pass:
    // only the max over the previous label, V[u][b] = max_a V[u-1][a] + T[a][b] (+ unary,
    // loss), run with b innermost along a row of T (contiguous; vectorizes, no branch). The
    // argument of the max is needed only along the chosen path: the backward pass recovers
    // it from V[u-1] by the same additions, the first a attaining the max (as a forward scan
    // over a with strict > would record), so the labeling is the one of the textbook Viterbi.
    V_.resize(static_cast<std::size_t>(U) * K);
    double* V = V_.data();
    for (int k = 0; k < K; ++k) V[k] = unary[k] + (k != truth[0] ? per_unit : 0.0);
    for (int u = 1; u < U; ++u) {
      const double* prev = V + static_cast<std::size_t>(u - 1) * K;
      double* cur = V + static_cast<std::size_t>(u) * K;
      max_plus(K, prev, T, cur);
      const double* un = unary + static_cast<std::size_t>(u) * K;
      for (int b = 0; b < K; ++b) cur[b] = cur[b] + un[b] + (b != truth[u] ? per_unit : 0.0);
    }
    const double* last = V + static_cast<std::size_t>(U - 1) * K;
    int k = 0;
    for (int c = 1; c < K; ++c)
      if (last[c] > last[k]) k = c;
    out.labels[static_cast<std::size_t>(U - 1)] = k;
    for (int u = U - 1; u > 0; --u) {
      const double* prev = V + static_cast<std::size_t>(u - 1) * K;
      int arg = 0;
      double best = prev[0] + T[k];
      for (int a = 1; a < K; ++a) {
        const double v = prev[a] + T[static_cast<std::size_t>(a) * K + k];
        if (v > best) best = v, arg = a;
      }
      k = arg;
      out.labels[static_cast<std::size_t>(u - 1)] = k;
    }
  }

 private:
  bool normalized_;
  std::vector<double> V_;  // reused across calls: no allocation per call
};

dualgap::PluginDescription describe() {
  return dualgap::describe_oracle<ChainViterbi>(
      "chain_viterbi", "1.0.0",
      "Chain (sequence) loss-augmented max-oracle by Viterbi (Shah et al., CVPR 2015, App. A)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
