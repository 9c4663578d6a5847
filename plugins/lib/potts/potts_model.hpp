// The Potts-model part shared by the graph_cut and potts_expansion oracles: Hamming loss,
// the fixed-weight Potts constant c(y) = -beta * #{edges (a,b): y_a != y_b}, and a cache of
// one prebuilt BinaryCut per example (the graph structure never changes between calls).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "potts/binary_cut.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/options.hpp"

namespace dualgap_structured {

class PottsModel {
 public:
  PottsModel(double beta, bool normalized) : beta_(beta), normalized_(normalized) {}

  double beta() const { return beta_; }

  double hamming(const dualgap::Examples& ex, std::size_t i, const int* y) const {
    const auto b = ex.unit_begin(i);
    const int U = ex.units_of(i);
    int wrong = 0;
    for (int u = 0; u < U; ++u) wrong += (y[u] != ex.y[b + u]);
    return normalized_ ? (U ? static_cast<double>(wrong) / U : 0.0) : wrong;
  }
  /// Loss added per wrong unit in the loss-augmented problem.
  double per_unit_loss(const dualgap::Examples& ex, std::size_t i) const {
    const int U = ex.units_of(i);
    return normalized_ ? (U ? 1.0 / U : 0.0) : 1.0;
  }
  double potts(const dualgap::Examples& ex, std::size_t i, const int* y) const {
    auto [eb, ee] = ex.edge_range(i);
    int cut = 0;
    for (auto k = eb; k < ee; ++k) cut += (y[ex.edges[k].first] != y[ex.edges[k].second]);
    return -beta_ * cut;
  }

  /// The prebuilt cut graph of example i of `ex` (built on first use).
  BinaryCut& graph(const dualgap::Examples& ex, std::size_t i) {
    auto& per = cache_[&ex];
    if (per.size() != ex.num_examples()) {
      per.clear();
      per.resize(ex.num_examples());
    }
    auto& g = per[i];
    auto [eb, ee] = ex.edge_range(i);
    if (!g || !g->matches(ex.units_of(i), ex.edges.data() + eb, static_cast<std::size_t>(ee - eb)))
      g = std::make_unique<BinaryCut>(ex.units_of(i), ex.edges.data() + eb,
                                      static_cast<std::size_t>(ee - eb));
    return *g;
  }

 private:
  double beta_;
  bool normalized_;
  std::unordered_map<const dualgap::Examples*, std::vector<std::unique_ptr<BinaryCut>>> cache_;
};

/// The parameters every Potts oracle has: beta and the loss normalization.
struct PottsOptions {
  double beta = 1.0;
  bool normalized = true;
  /// Declares beta and loss in the options O of a Potts oracle (O derives from PottsOptions).
  template <class O>
  static void bind_potts(dualgap::Binder<O>& b) {
    b.field(&O::beta, "beta", "fixed Potts weight per cut edge (paper: 1)").min(0.0);
    b.choice(&O::normalized, "loss", {{"normalized", true}, {"count", false}},
             "Hamming loss over superpixels divided by their number (paper) or the plain count");
  }
  static void bind(dualgap::Binder<PottsOptions>& b) { bind_potts(b); }
};

/// Base of the Potts oracles: loss (Hamming) and the w-independent score (Potts term) come from
/// one PottsModel built from the plugin's `beta` and `loss` parameters; subclasses provide argmax.
class PottsOracle : public dualgap::StructuredOracle {
 public:
  explicit PottsOracle(const PottsOptions& o) : model_(o.beta, o.normalized) {}
  double loss(const dualgap::Examples& ex, std::size_t i, const int* y) const override {
    return model_.hamming(ex, i, y);
  }
  double constant(const dualgap::Examples& ex, std::size_t i, const int* y) const override {
    return model_.potts(ex, i, y);
  }

 protected:
  PottsModel model_;
};

}  // namespace dualgap_structured
