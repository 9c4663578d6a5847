// The "structured" oracle interface: loss-augmented max-oracles for structural SVMs.
//
// Joint feature map (every oracle of the MP-BCFW paper has this form):
//
//   phi(x_i, y) = [ sum_u  x_u (x) e_{y_u}  ;  sum_{(a,b) in pairs(i)} e_{y_a} (x) e_{y_b} ]
//
// over the units u of example i (rows of Examples::X). The second block (K x K transition
// weights) exists only when uses_transitions(); its pairs are consecutive units for a chain
// (an example without edges) and the example's edges otherwise. Weight layout:
//   w[k*d + j]          unary weight of class k, feature j   (k < K, j < d)
//   w[K*d + a*K + b]    transition weight of the pair (a, b)
// A w-independent score c(y) (e.g. a fixed-weight Potts term) may be added: constant().
//
// The contract an oracle implements (cf. dlib's separation_oracle):
//   argmax(ex, i, unary, transition, loss_augmented, out)
//     requires: unary is a units_of(i) x K row-major table, unary[u*K+k] = <w_k, x_u>;
//               transition is K x K row-major, or nullptr when !uses_transitions().
//     ensures:  out.labels (size units_of(i)) maximizes
//                 sum_u unary[u][y_u] + sum_pairs transition[y_a][y_b] + c(y)
//                 + (loss_augmented ? loss(y_i, y) : 0)
//               exactly when exact(), approximately otherwise.
// The public entry points compute the score table (timed as part of the call), call argmax,
// fill out.loss and out.constant, and count the call.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <string>
#include <vector>

#include "dualgap/data.hpp"
#include "dualgap/oracle.hpp"

namespace dualgap {

struct Labeling {
  std::vector<int> labels;  ///< one label per unit of the example
  double loss = 0;          ///< Delta(y_i, labels)
  double constant = 0;      ///< c(labels), the w-independent score
};

class DUALGAP_API StructuredOracle : public Oracle {
 public:
  /// The interface names describe_oracle puts into the plugin description.
  static std::vector<std::string> interfaces() { return {"structured"}; }

  /// Whether w carries a K x K transition block after the K*d unary block.
  virtual bool uses_transitions() const { return false; }
  /// Whether argmax is exact (false for alpha-expansion: primal and gap become approximate).
  virtual bool exact() const { return true; }
  /// Delta(y_i, y) for a labeling y of example i (size units_of(i)).
  virtual double loss(const Examples& ex, std::size_t i, const int* y) const = 0;
  /// w-independent score c(y); 0 unless the model has a fixed term (Potts).
  virtual double constant(const Examples& ex, std::size_t i, const int* y) const {
    (void)ex, (void)i, (void)y;
    return 0.0;
  }

  /// Dimension of w for data with d features and K classes.
  std::size_t dim(std::size_t d, int K) const {
    return d * K + (uses_transitions() ? static_cast<std::size_t>(K) * K : 0);
  }

  /// Loss-augmented max-oracle at w. Leaves the unary score table of w in `scores`.
  void max_oracle(const Examples& ex, std::size_t i, const Vector& w, Labeling& out,
                  std::vector<double>& scores) {
    CallScope scope(*this, CallKind::exact);
    solve(ex, i, w, true, out, scores);
  }
  /// Loss-augmented max-oracle from a unary score table the caller computed, for a solver that
  /// keeps w in another layout (bcfw's exact steps on sparse data keep it feature-major).
  /// requires: unary[u*K + k] = <w_k, x_u> for the units of example i at the caller's w;
  ///           transition as for argmax (nullptr when !uses_transitions()).
  /// Counted and timed like max_oracle; computing the scores is then the caller's time.
  void max_oracle_scored(const Examples& ex, std::size_t i, const double* unary, const double* transition,
                         Labeling& out) {
    CallScope scope(*this, CallKind::exact);
    labeling(ex, i, unary, transition, true, out);
  }
  /// Prediction (no loss term) at w.
  void decode(const Examples& ex, std::size_t i, const Vector& w, Labeling& out,
              std::vector<double>& scores) {
    CallScope scope(*this, CallKind::exact);
    solve(ex, i, w, false, out, scores);
  }

  /// unary[u*K + k] = <w_k, x_u> for the units of example i (resized). Dense rows use the
  /// core's register-blocked AVX2 / AVX-512 kernels when the CPU has them (core/src/oracles).
  static void unary_scores(const Examples& ex, std::size_t i, const Vector& w,
                           std::vector<double>& unary);

  /// w += coef * phi(x_i, y).
  void add_joint_features(const Examples& ex, std::size_t i, const int* y, double coef,
                          Vector& w) const {
    const int K = ex.num_classes;
    const auto d = ex.num_features();
    const auto b = ex.unit_begin(i), e = ex.unit_end(i);
    for (auto u = b; u < e; ++u)
      ex.X.row_axpy(u, coef, w.data() + static_cast<std::size_t>(y[u - b]) * d);
    if (!uses_transitions()) return;
    double* T = w.data() + static_cast<std::size_t>(K) * d;
    for_each_pair(ex, i, [&](int a, int c) { T[y[a] * K + y[c]] += coef; });
  }

  /// <w, phi(x_i, y)> from the unary score table of w for example i (as max_oracle and decode
  /// leave it in `scores`) plus the transition block of w.
  double joint_score(const Examples& ex, std::size_t i, const int* y, const double* unary, const Vector& w) const {
    const int K = ex.num_classes;
    const int U = ex.units_of(i);
    double s = 0;
    for (int u = 0; u < U; ++u) s += unary[u * K + y[u]];
    if (uses_transitions()) {
      const double* T = w.data() + static_cast<std::size_t>(K) * ex.num_features();
      for_each_pair(ex, i, [&](int a, int c) { s += T[y[a] * K + y[c]]; });
    }
    return s;
  }

  /// Calls f(a, b) for each pair of local unit indices carrying a transition feature.
  template <class F>
  static void for_each_pair(const Examples& ex, std::size_t i, F&& f) {
    if (ex.has_edges()) {
      auto [eb, ee] = ex.edge_range(i);
      for (auto k = eb; k < ee; ++k) f(ex.edges[k].first, ex.edges[k].second);
    } else {
      const int U = ex.units_of(i);
      for (int u = 0; u + 1 < U; ++u) f(u, u + 1);
    }
  }

 protected:
  virtual void argmax(const Examples& ex, std::size_t i, const double* unary,
                      const double* transition, bool loss_augmented, Labeling& out) = 0;

 private:
  void solve(const Examples& ex, std::size_t i, const Vector& w, bool loss_augmented,
             Labeling& out, std::vector<double>& scores) {
    unary_scores(ex, i, w, scores);
    const double* T = uses_transitions()
                          ? w.data() + static_cast<std::size_t>(ex.num_classes) * ex.num_features()
                          : nullptr;
    labeling(ex, i, scores.data(), T, loss_augmented, out);
  }
  void labeling(const Examples& ex, std::size_t i, const double* unary, const double* T, bool loss_augmented,
                Labeling& out) {
    out.labels.resize(static_cast<std::size_t>(ex.units_of(i)));
    argmax(ex, i, unary, T, loss_augmented, out);
    out.loss = loss(ex, i, out.labels.data());
    out.constant = constant(ex, i, out.labels.data());
  }
};

}  // namespace dualgap
