// Multiclass logistic loss, eq. (12) of Blondel, Seki and Uematsu, Machine Learning 2013:
//   L(W) = (1/n) sum_i log(1 + sum_{r != y_i} exp(W_:r . x_i - W_:y_i . x_i)),
// block j in O(nnz_j K) with K exponentials per non-zero (the cost the paper contrasts with
// the squared hinge).
#include <algorithm>
#include <cmath>

#include "block_loss/block_loss_impl.hpp"
#include "dualgap/plugin.hpp"

namespace {

struct MulticlassLogistic {
  static constexpr const char* name = "multiclass_logistic";
  // Hessian of log-sum-exp is diag(p) - p p^T <= 1/2 I (paper: K_j = 1/2 sum_i x_ij^2, divided
  // by n since our loss carries 1/n).
  static constexpr int kMaxStack = 512;
  static double block_factor(int) { return 0.5; }
  static double global_factor(int) { return 0.5; }

  static double lse(const double* s, int K) {
    const double m = *std::max_element(s, s + K);
    double z = 0;
    for (int r = 0; r < K; ++r) z += std::exp(s[r] - m);
    return m + std::log(z);
  }
  static double loss(const double* s, int y, int K) { return lse(s, K) - s[y]; }
  // g = p - e_y with p = softmax(s).
  static double grad(const double* s, int y, int K, double* g) {
    const double m = *std::max_element(s, s + K);
    double z = 0;
    for (int r = 0; r < K; ++r) z += (g[r] = std::exp(s[r] - m));
    const double inv = 1.0 / z;
    for (int r = 0; r < K; ++r) g[r] *= inv;
    g[y] -= 1.0;
    return m + std::log(z) - s[y];
  }
  static void accumulate(const double* s, int y, int K, double x, double* G, double* h) {
    const double m = *std::max_element(s, s + K);
    double e[kMaxStack];
    const bool stack = K <= kMaxStack;
    double z = 0;
    for (int r = 0; r < K; ++r) {
      const double v = std::exp(s[r] - m);
      if (stack) e[r] = v;
      z += v;
    }
    const double inv = 1.0 / z, xx = x * x;
    for (int r = 0; r < K; ++r) {
      const double p = (stack ? e[r] : std::exp(s[r] - m)) * inv;
      G[r] += x * p;
      h[r] += xx * p * (1 - p);
    }
    G[y] -= x;
  }
  static double update_change(double* s, int y, int K, double x, const double* delta) {
    const double before = loss(s, y, K);
    for (int r = 0; r < K; ++r) s[r] += x * delta[r];
    return loss(s, y, K) - before;
  }
  // -l^*(theta (p - e_y)) = entropy of q = theta p + (1 - theta) e_y.
  static double neg_conj(const double* s, int y, int K, double theta) {
    const double m = *std::max_element(s, s + K);
    double z = 0;
    for (int r = 0; r < K; ++r) z += std::exp(s[r] - m);
    double ent = 0;
    for (int r = 0; r < K; ++r) {
      double q = theta * std::exp(s[r] - m) / z;
      if (r == y) q += 1 - theta;
      if (q > 0) ent -= q * std::log(q);
    }
    return ent;
  }
};

dualgap::PluginDescription describe() {
  return dualgap::describe_oracle<dualgap::block_loss_detail::BlockLossImpl<MulticlassLogistic>>(
      "multiclass_logistic", "1.0.0",
      "Multiclass logistic loss with block gradients (Blondel et al., Machine Learning 2013, eq. 12)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
