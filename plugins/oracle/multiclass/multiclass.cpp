// Multi-class max-oracle of the structural SVM with joint features phi(x, y) = x (x) e_y and
// the 0-1 loss: argmax_y <w_y, x_i> + [y != y_i] (loss-augmented) or argmax_y <w_y, x_i>
// (prediction), by exhaustive search over the K classes. Appendix A (USPS) of Shah,
// Kolmogorov, Lampert, "A Multi-Plane Block-Coordinate Frank-Wolfe Algorithm for Training
// Structural SVMs with a Costly max-Oracle", CVPR 2015. With class_cost the loss is
// cost-sensitive: Delta(y_i, y) = cost[y_i] [y != y_i] (margin rescaling with a per-class loss,
// Tsochantaridis et al., JMLR 2005).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"

namespace {

class MulticlassOracle final : public dualgap::StructuredOracle {
 public:
  struct Options {
    std::vector<double> class_cost;
    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::class_cost, "class_cost",
              "loss of a mistake on a unit of class k, one value per class in the data's class order (as "
              "'dualgap validate' lists the classes); empty: 1 for every class, the 0-1 loss")
          .min(0.0);
    }
    // One cost per class: checked against the prepared data, where K is known.
    bool validate_data(const dualgap::DataShape& data, dualgap::ParamIssue* issue) const {
      if (class_cost.empty() || class_cost.size() == static_cast<std::size_t>(data.K)) return true;
      std::string classes;
      for (std::size_t k = 0; k < data.class_names.size() && k < 20; ++k)
        classes += (k ? ", " : "") + data.class_names[k];
      if (data.class_names.size() > 20) classes += ", ...";
      *issue = {"class_cost", std::to_string(class_cost.size()) + " values for " + std::to_string(data.K) +
                                  " classes: expected one per class, in the data's class order (" + classes + ")"};
      return false;
    }
  };
  explicit MulticlassOracle(const Options& o) : cost_(o.class_cost) {}

  double loss(const dualgap::Examples& ex, std::size_t i, const int* y) const override {
    check_costs(ex);
    const auto b = ex.unit_begin(i), e = ex.unit_end(i);
    // One unit for multi-class data; for multi-unit examples this is the normalized Hamming
    // loss (each wrong unit weighted by its class's cost), which equals the 0-1 loss when each
    // example has a single unit and no costs are given.
    double wrong = 0;
    for (auto u = b; u < e; ++u) {
      const int truth = ex.y[static_cast<std::size_t>(u)];
      if (y[u - b] != truth) wrong += cost(truth);
    }
    return e > b ? wrong / static_cast<double>(e - b) : 0.0;
  }

 protected:
  void argmax(const dualgap::Examples& ex, std::size_t i, const double* unary,
              const double* /*transition*/, bool loss_augmented,
              dualgap::Labeling& out) override {
    check_costs(ex);
    const int K = ex.num_classes;
    const auto b = ex.unit_begin(i), e = ex.unit_end(i);
    const double unit_loss = e > b ? 1.0 / static_cast<double>(e - b) : 0.0;
    // Units are independent (no transitions): maximize each one separately.
    for (auto u = b; u < e; ++u) {
      const double* s = unary + (u - b) * K;
      const int truth = ex.y[static_cast<std::size_t>(u)];
      const double miss = loss_augmented ? unit_loss * cost(truth) : 0.0;
      int best = 0;
      double best_v = s[0] + (truth != 0 ? miss : 0.0);
      for (int k = 1; k < K; ++k) {
        const double v = s[k] + (truth != k ? miss : 0.0);
        if (v > best_v) best_v = v, best = k;
      }
      out.labels[static_cast<std::size_t>(u - b)] = best;
    }
  }

 private:
  double cost(int truth) const { return cost_.empty() ? 1.0 : cost_[static_cast<std::size_t>(truth)]; }
  // The core checks the costs against the data before a run (Options::validate_data); an object
  // made by hand and handed other data is refused here rather than read out of bounds.
  void check_costs(const dualgap::Examples& ex) const {
    if (!cost_.empty() && cost_.size() != static_cast<std::size_t>(ex.num_classes))
      throw std::runtime_error("multiclass: class_cost has " + std::to_string(cost_.size()) + " values for " +
                               std::to_string(ex.num_classes) + " classes");
  }

  std::vector<double> cost_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_oracle<MulticlassOracle>("multiclass", "1.1.0",
                                                   "Multi-class max-oracle: joint features x (x) e_y, 0-1 loss "
                                                   "(or a cost per class), exhaustive argmax (Shah, Kolmogorov, "
                                                   "Lampert, CVPR 2015, Appendix A)");
}

}  // namespace
DUALGAP_PLUGIN(describe)
