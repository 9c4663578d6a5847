// Multi-label Potts segmentation max-oracle, APPROXIMATE: argmax_{y in {0..K-1}^U}
//   sum_u <w_{y_u}, x_u> - beta * sum_{(a,b) in E} [y_a != y_b]  (+ Delta(y_i, y))
// by alpha-expansion (Boykov, Veksler & Zabih, PAMI 2001): each move is a binary graph cut
// (Boykov-Kolmogorov max-flow) letting any set of units switch to label alpha. NP-hard in
// general, so exact() is false and the SSVM primal / gap built on it are flagged approximate.
// Appendix A (Stanford background) of Shah, Kolmogorov & Lampert, CVPR 2015.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "potts/potts_model.hpp"

namespace {

class PottsExpansion final : public dualgap_structured::PottsOracle {
 public:
  struct Options : dualgap_structured::PottsOptions {
    int max_cycles = 20;
    static void bind(dualgap::Binder<Options>& b) {
      bind_potts(b);
      b.field(&Options::max_cycles, "max_cycles", "maximum sweeps over all labels alpha").min(1);
    }
  };
  explicit PottsExpansion(const Options& o) : PottsOracle(o), max_cycles_(o.max_cycles) {}

  bool exact() const override { return false; }

 protected:
  void argmax(const dualgap::Examples& ex, std::size_t i, const double* unary, const double*,
              bool loss_augmented, dualgap::Labeling& out) override {
    const int K = ex.num_classes;
    const int U = ex.units_of(i);
    if (U == 0) return;
    const int* truth = ex.y.data() + ex.unit_begin(i);
    const double l = loss_augmented ? model_.per_unit_loss(ex, i) : 0.0;
    // score_[u*K+k]: unary score plus the loss term of label k at unit u.
    score_.assign(unary, unary + static_cast<std::size_t>(U) * K);
    if (l != 0)
      for (int u = 0; u < U; ++u)
        for (int k = 0; k < K; ++k)
          if (k != truth[u]) score_[static_cast<std::size_t>(u) * K + k] += l;
    int* y = out.labels.data();
    for (int u = 0; u < U; ++u) {  // start: the best label of each unit, Potts term ignored
      const double* s = score_.data() + static_cast<std::size_t>(u) * K;
      y[u] = static_cast<int>(std::max_element(s, s + K) - s);
    }
    auto [eb, ee] = ex.edge_range(i);
    const auto* E = ex.edges.data() + eb;
    const auto m = static_cast<std::size_t>(ee - eb);
    const double beta = model_.beta();
    if (m == 0 || beta == 0 || K < 2) return;  // no pairwise term: the start is optimal
    auto& cut = model_.graph(ex, i);
    cost0_.resize(static_cast<std::size_t>(U));
    cost1_.resize(static_cast<std::size_t>(U));
    w10_.resize(m);
    w01_.resize(m);
    x_.resize(static_cast<std::size_t>(U));
    double energy = energy_of(y, U, K, E, m);
    for (int cycle = 0; cycle < max_cycles_; ++cycle) {
      bool improved = false;
      for (int alpha = 0; alpha < K; ++alpha) {
        // x_u = 1: unit u takes alpha; x_u = 0: it keeps y_u.
        for (int u = 0; u < U; ++u) {
          const double* s = score_.data() + static_cast<std::size_t>(u) * K;
          cost0_[u] = -s[y[u]];
          cost1_[u] = -s[alpha];
        }
        for (std::size_t e = 0; e < m; ++e) {
          const int a = E[e].first, b = E[e].second;
          // Pairwise table A=E(0,0), B=E(0,1), C=E(1,0), D=E(1,1) of the move; D = 0.
          const double A = y[a] != y[b] ? beta : 0.0;
          const double B = y[a] != alpha ? beta : 0.0;
          const double C = alpha != y[b] ? beta : 0.0;
          // E = A + (C - A) x_a + (D - C) x_b + (B + C - A - D)(1 - x_a) x_b; B + C >= A.
          cost1_[a] += C - A;
          cost1_[b] += -C;
          w10_[e] = 0.0;
          w01_[e] = B + C - A;
        }
        cut.solve(cost0_.data(), cost1_.data(), w10_.data(), w01_.data(), x_.data());
        trial_.assign(y, y + U);
        for (int u = 0; u < U; ++u)
          if (x_[u]) trial_[u] = alpha;
        const double e_new = energy_of(trial_.data(), U, K, E, m);
        if (e_new < energy - 1e-12 * (1 + std::abs(energy))) {
          std::copy(trial_.begin(), trial_.end(), y);
          energy = e_new;
          improved = true;
        }
      }
      if (!improved) break;
    }
  }

 private:
  double energy_of(const int* y, int U, int K, const std::pair<int, int>* E, std::size_t m) const {
    double en = 0;
    for (int u = 0; u < U; ++u) en -= score_[static_cast<std::size_t>(u) * K + y[u]];
    int cut = 0;
    for (std::size_t e = 0; e < m; ++e) cut += (y[E[e].first] != y[E[e].second]);
    return en + model_.beta() * cut;
  }

  int max_cycles_;
  std::vector<double> score_, cost0_, cost1_, w10_, w01_;
  std::vector<int> x_, trial_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_oracle<PottsExpansion>("potts_expansion", "1.0.0",
                                                 "Multi-label Potts segmentation max-oracle, approximate by "
                                                 "alpha-expansion (Shah et al., CVPR 2015, App. A; Boykov et al., "
                                                 "PAMI 2001)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
