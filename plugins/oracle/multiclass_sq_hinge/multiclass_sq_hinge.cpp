// Multiclass squared hinge loss, eq. (2) of Blondel, Seki and Uematsu, Machine Learning 2013:
//   L(W) = (1/n) sum_i sum_{r != y_i} max(1 - (W_:y_i - W_:r) . x_i, 0)^2,
// with the partial gradient and curvature of Algorithm 3 (block j in O(nnz_j (K-1))).
#include <cmath>

#include "block_loss_impl.hpp"
#include "dualgap/plugin.hpp"

namespace {

struct MulticlassSqHinge {
  static constexpr const char* name = "multiclass_sq_hinge";
  // Appendix A of the paper: K_j = 4 (K-1)/n sum_i x_ij^2.
  static double block_factor(int K) { return 4.0 * (K - 1); }
  // Hessian in s is at most 2 D^T D with D: s -> (s_y - s_r)_{r != y}; D^T D is the Laplacian
  // of a star on K nodes, largest eigenvalue K.
  static double global_factor(int K) { return 2.0 * K; }

  static double loss(const double* s, int y, int K) {
    const double sy = s[y];
    double l = 0;
    for (int r = 0; r < K; ++r) {
      const double a = 1.0 - sy + s[r];
      if (r != y && a > 0) l += a * a;
    }
    return l;
  }
  static double grad(const double* s, int y, int K, double* g) {
    const double sy = s[y];
    double l = 0, gy = 0;
    for (int r = 0; r < K; ++r) {
      const double a = 1.0 - sy + s[r];
      if (r != y && a > 0) {
        l += a * a;
        g[r] = 2 * a;
        gy -= 2 * a;
      } else {
        g[r] = 0;
      }
    }
    g[y] = gy;
    return l;
  }
  static void accumulate(const double* s, int y, int K, double x, double* G, double* h) {
    const double sy = s[y];
    const double tx = 2 * x, txx = 2 * x * x;
    double gy = 0, hy = 0;
    for (int r = 0; r < K; ++r) {
      const double a = 1.0 - sy + s[r];
      if (r != y && a > 0) {
        G[r] += tx * a;
        h[r] += txx;
        gy -= tx * a;
        hy += txx;
      }
    }
    G[y] += gy;
    h[y] += hy;
  }
  // A_ir changes by x (delta_r - delta_y): old and new hinge in the same loop.
  static double update_change(double* s, int y, int K, double x, const double* delta) {
    const double sy = s[y], sy_new = sy + x * delta[y];
    double c = 0;
    for (int r = 0; r < K; ++r) {
      const double a = 1.0 - sy + s[r];
      s[r] += x * delta[r];
      const double b = 1.0 - sy_new + s[r];
      if (r == y) continue;
      if (a > 0) c -= a * a;
      if (b > 0) c += b * b;
    }
    return c;
  }
  // Per pair (i, r): l(z) = max(1 - z, 0)^2, multiplier beta = theta * 2 max(A_ir, 0) >= 0,
  // -l^*(-beta) = beta - beta^2 / 4.
  static double neg_conj(const double* s, int y, int K, double theta) {
    const double sy = s[y];
    double v = 0;
    for (int r = 0; r < K; ++r) {
      const double a = 1.0 - sy + s[r];
      if (r != y && a > 0) {
        const double b = theta * 2 * a;
        v += b - 0.25 * b * b;
      }
    }
    return v;
  }
};

dualgap::PluginDescription describe() {
  return dualgap::describe_plugin<dualgap::block_loss_detail::BlockLossImpl<MulticlassSqHinge>>(
      dualgap::Kind::oracle, "multiclass_sq_hinge", "1.0.0",
      "Multiclass squared hinge loss with block gradients (Blondel et al., Machine Learning 2013, eq. 2, Algorithm 3)",
      {});
}

}  // namespace

DUALGAP_PLUGIN(describe)
