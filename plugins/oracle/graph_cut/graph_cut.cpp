// Binary segmentation max-oracle: argmax_{y in {0,1}^U} sum_u <w_{y_u}, x_u>
//   - beta * sum_{(a,b) in E} [y_a != y_b]  (+ Delta(y_i, y)),
// exact by min-cut / max-flow (Boykov-Kolmogorov, Boost Graph): the energy is submodular.
// Appendix A (HorseSeg) of Shah, Kolmogorov & Lampert, CVPR 2015. The Potts term has a fixed
// weight beta (paper: 1) and enters the plane's constant part, not w.
#include <stdexcept>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "potts/potts_model.hpp"

namespace {

class GraphCut final : public dualgap_structured::PottsOracle {
 public:
  using Options = dualgap_structured::PottsOptions;
  explicit GraphCut(const Options& o) : PottsOracle(o) {}

 protected:
  void argmax(const dualgap::Examples& ex, std::size_t i, const double* unary, const double*,
              bool loss_augmented, dualgap::Labeling& out) override {
    if (ex.num_classes != 2)
      throw std::runtime_error("graph_cut: needs binary labels (num_classes = 2), the data has " +
                               std::to_string(ex.num_classes) + "; use potts_expansion");
    const int U = ex.units_of(i);
    if (U == 0) return;
    const int* truth = ex.y.data() + ex.unit_begin(i);
    const double l = loss_augmented ? model_.per_unit_loss(ex, i) : 0.0;
    cost0_.resize(static_cast<std::size_t>(U));
    cost1_.resize(static_cast<std::size_t>(U));
    for (int u = 0; u < U; ++u) {  // costs are negated scores: maximize <=> minimize energy
      cost0_[u] = -(unary[2 * u] + (truth[u] != 0 ? l : 0.0));
      cost1_[u] = -(unary[2 * u + 1] + (truth[u] != 1 ? l : 0.0));
    }
    auto [eb, ee] = ex.edge_range(i);
    w_.assign(static_cast<std::size_t>(ee - eb), model_.beta());
    model_.graph(ex, i).solve(cost0_.data(), cost1_.data(), w_.data(), w_.data(), out.labels.data());
  }

 private:
  std::vector<double> cost0_, cost1_, w_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_oracle<GraphCut>("graph_cut", "1.0.0",
                                           "Binary Potts segmentation max-oracle by min-cut/max-flow, "
                                           "Boykov-Kolmogorov (Shah et al., CVPR 2015, App. A)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
