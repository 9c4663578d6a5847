// Multitask (one-vs-rest) squared hinge loss, eq. (11) of Blondel, Seki and Uematsu, Machine
// Learning 2013:  L(W) = (1/n) sum_i sum_r max(1 - Y_ir W_:r . x_i, 0)^2,  Y_ir = +1 if y_i = r
// else -1. Block j in O(nnz_j K).
#include <cmath>

#include "block_loss/block_loss_impl.hpp"
#include "dualgap/plugin.hpp"

namespace {

struct MultitaskSqHinge {
  static constexpr const char* name = "multitask_sq_hinge";
  // Each of the K columns is an independent squared hinge: second derivative 2 x^2.
  static double block_factor(int) { return 2.0; }
  static double global_factor(int) { return 2.0; }

  static double loss(const double* s, int y, int K) {
    double l = 0;
    for (int r = 0; r < K; ++r) {
      const double a = r == y ? 1.0 - s[r] : 1.0 + s[r];
      if (a > 0) l += a * a;
    }
    return l;
  }
  static double grad(const double* s, int y, int K, double* g) {
    double l = 0;
    for (int r = 0; r < K; ++r) {
      const double Y = r == y ? 1.0 : -1.0;
      const double a = 1.0 - Y * s[r];
      if (a > 0) {
        l += a * a;
        g[r] = -2 * Y * a;
      } else {
        g[r] = 0;
      }
    }
    return l;
  }
  static void accumulate(const double* s, int y, int K, double x, double* G, double* h) {
    const double txx = 2 * x * x;
    for (int r = 0; r < K; ++r) {
      const double Y = r == y ? 1.0 : -1.0;
      const double a = 1.0 - Y * s[r];
      if (a > 0) {
        G[r] -= 2 * Y * a * x;
        h[r] += txx;
      }
    }
  }
  static double update_change(double* s, int y, int K, double x, const double* delta) {
    double c = 0;
    for (int r = 0; r < K; ++r) {
      const double Y = r == y ? 1.0 : -1.0;
      const double a = 1.0 - Y * s[r];
      s[r] += x * delta[r];
      const double b = 1.0 - Y * s[r];
      if (a > 0) c -= a * a;
      if (b > 0) c += b * b;
    }
    return c;
  }
  // Per (i, r): l(z) = max(1 - z, 0)^2 with z = Y_ir s_ir; beta = theta * 2 max(1 - z, 0);
  // -l^*(-beta) = beta - beta^2 / 4.
  static double neg_conj(const double* s, int y, int K, double theta) {
    double v = 0;
    for (int r = 0; r < K; ++r) {
      const double a = r == y ? 1.0 - s[r] : 1.0 + s[r];
      if (a > 0) {
        const double b = theta * 2 * a;
        v += b - 0.25 * b * b;
      }
    }
    return v;
  }
};

dualgap::PluginDescription describe() {
  return dualgap::describe_oracle<dualgap::block_loss_detail::BlockLossImpl<MultitaskSqHinge>>(
      "multitask_sq_hinge", "1.0.0",
      "One-vs-rest (multitask) squared hinge loss with block gradients (Blondel et al., Machine Learning 2013, eq. 11)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
