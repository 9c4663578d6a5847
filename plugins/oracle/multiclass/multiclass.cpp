// Multi-class max-oracle of the structural SVM with joint features phi(x, y) = x (x) e_y and
// the 0-1 loss: argmax_y <w_y, x_i> + [y != y_i] (loss-augmented) or argmax_y <w_y, x_i>
// (prediction), by exhaustive search over the K classes. Appendix A (USPS) of Shah,
// Kolmogorov, Lampert, "A Multi-Plane Block-Coordinate Frank-Wolfe Algorithm for Training
// Structural SVMs with a Costly max-Oracle", CVPR 2015.
#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"

namespace {

class MulticlassOracle final : public dualgap::StructuredOracle {
 public:
  double loss(const dualgap::Examples& ex, std::size_t i, const int* y) const override {
    const auto b = ex.unit_begin(i), e = ex.unit_end(i);
    // One unit for multi-class data; for multi-unit examples this is the normalized Hamming
    // loss, which equals the 0-1 loss when each example has a single unit.
    int wrong = 0;
    for (auto u = b; u < e; ++u) wrong += (y[u - b] != ex.y[static_cast<std::size_t>(u)]);
    return e > b ? static_cast<double>(wrong) / static_cast<double>(e - b) : 0.0;
  }

 protected:
  void argmax(const dualgap::Examples& ex, std::size_t i, const double* unary,
              const double* /*transition*/, bool loss_augmented,
              dualgap::Labeling& out) override {
    const int K = ex.num_classes;
    const auto b = ex.unit_begin(i), e = ex.unit_end(i);
    const double unit_loss = e > b ? 1.0 / static_cast<double>(e - b) : 0.0;
    // Units are independent (no transitions): maximize each one separately.
    for (auto u = b; u < e; ++u) {
      const double* s = unary + (u - b) * K;
      const int truth = ex.y[static_cast<std::size_t>(u)];
      int best = 0;
      double best_v = s[0] + ((loss_augmented && truth != 0) ? unit_loss : 0.0);
      for (int k = 1; k < K; ++k) {
        const double v = s[k] + ((loss_augmented && truth != k) ? unit_loss : 0.0);
        if (v > best_v) best_v = v, best = k;
      }
      out.labels[static_cast<std::size_t>(u - b)] = best;
    }
  }
};

dualgap::PluginDescription describe() {
  return dualgap::describe_oracle<MulticlassOracle>("multiclass", "1.0.0",
                                                   "Multi-class max-oracle: joint features x (x) e_y, 0-1 loss, "
                                                   "exhaustive argmax (Shah, Kolmogorov, Lampert, CVPR 2015, "
                                                   "Appendix A)");
}

}  // namespace
DUALGAP_PLUGIN(describe)
