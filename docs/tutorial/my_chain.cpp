// my_chain: the loss-augmented max-oracle of a linear-chain structural SVM (interface
// "structured"), computed exactly by the Viterbi algorithm. Written in the tutorial
// docs/writing-an-oracle.md, starting from `dualgap new-plugin oracle my_chain`.
//
// Model: the units u = 0..U-1 of an example form a chain; a labelling y scores
//   sum_u <w_{y_u}, x_u> + sum_{u=0}^{U-2} T[y_u][y_{u+1}]
// with T the K x K transition block of w (uses_transitions() = true), and the loss is the
// Hamming loss Delta(y_i, y) = s * sum_u [y_u != y_iu], s = 1/U (normalized) or 1
// (cf. Appendix A of Shah, Kolmogorov & Lampert, CVPR 2015; Taskar et al., NIPS 2003).
// The loss decomposes over units, so loss augmentation adds s [k != y_iu] to the unary score
// of label k at unit u, and Viterbi stays exact:
//   V_0(k) = theta_0(k),  V_u(k) = theta_u(k) + max_j [V_{u-1}(j) + T[j][k]],
//   theta_u(k) = unary[u][k] + (loss_augmented ? s [k != y_iu] : 0),
// then backtrack from argmax_k V_{U-1}(k). Cost O(U K^2) per call, no allocation once the
// buffers have grown to the longest example.
//
// The contract (dualgap/oracles/structured.hpp): argmax(ex, i, unary, transition,
// loss_augmented, out) fills out.labels (sized units_of(i)) with a maximizer of
// score + (loss_augmented ? loss : 0); unary[u*K + k] = <w_k, x_u>; transition is the K x K
// row-major block of w. The public entry points count and time the call.
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"

namespace {

class MyChainOracle final : public dualgap::StructuredOracle {
 public:
  struct Options {  // parameters: defaults here, one bind() line each (dualgap/options.hpp)
    bool normalize = true;
    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::normalize, "normalize", "divide the Hamming loss by the number of units of the example");
    }
    // Chains only: the core's joint feature map pairs a graph example's units by its edges,
    // which Viterbi does not see. Refused when the experiment is validated, before any run.
    bool validate_data(const dualgap::DataShape& data, dualgap::ParamIssue* issue) const {
      if (!data.edges) return true;
      *issue = {"", "a chain oracle needs sequences; this data has graph examples (edges between units)"};
      return false;
    }
  };
  explicit MyChainOracle(const Options& o) : o_(o) {}

  bool uses_transitions() const override { return true; }

  double loss(const dualgap::Examples& ex, std::size_t i, const int* y) const override {
    const auto b = ex.unit_begin(i);
    const int units = ex.units_of(i);
    int wrong = 0;
    for (int u = 0; u < units; ++u) wrong += y[u] != ex.y[b + u];
    return o_.normalize ? static_cast<double>(wrong) / units : wrong;
  }

 protected:
  void argmax(const dualgap::Examples& ex, std::size_t i, const double* unary,
              const double* transition, bool loss_augmented, dualgap::Labeling& out) override {
    if (ex.has_edges()) throw std::runtime_error("my_chain: the data has graph edges, not chains");
    const int K = ex.num_classes;
    const int U = ex.units_of(i);
    const auto b = ex.unit_begin(i);
    const double s = loss_augmented ? (o_.normalize ? 1.0 / U : 1.0) : 0.0;
    value_.resize(static_cast<std::size_t>(U) * K);
    back_.resize(static_cast<std::size_t>(U) * K);
    auto theta = [&](int u, int k) { return unary[u * K + k] + (k != ex.y[b + u] ? s : 0.0); };

    for (int k = 0; k < K; ++k) value_[k] = theta(0, k);
    for (int u = 1; u < U; ++u) {
      const double* prev = &value_[static_cast<std::size_t>(u - 1) * K];
      for (int k = 0; k < K; ++k) {
        int best = 0;
        double best_value = prev[0] + transition[k];  // T[0][k]
        for (int j = 1; j < K; ++j) {
          const double v = prev[j] + transition[j * K + k];
          if (v > best_value) best_value = v, best = j;
        }
        value_[static_cast<std::size_t>(u) * K + k] = best_value + theta(u, k);
        back_[static_cast<std::size_t>(u) * K + k] = best;
      }
    }
    const double* last = &value_[static_cast<std::size_t>(U - 1) * K];
    int k = 0;
    for (int j = 1; j < K; ++j)
      if (last[j] > last[k]) k = j;
    for (int u = U - 1; u >= 0; --u) {
      out.labels[u] = k;
      if (u > 0) k = back_[static_cast<std::size_t>(u) * K + k];
    }
  }

 private:
  Options o_;
  std::vector<double> value_;  // V_u(k), grown once to the longest example
  std::vector<int> back_;      // argmax_j of the recursion, for backtracking
};

dualgap::PluginDescription describe() {
  return dualgap::describe_oracle<MyChainOracle>(
      "my_chain", "0.1.0", "Linear-chain max-oracle by Viterbi with Hamming loss (Shah et al., CVPR 2015, App. A)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
