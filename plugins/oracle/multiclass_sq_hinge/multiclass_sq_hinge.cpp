// Multiclass squared hinge loss, eq. (2) of Blondel, Seki and Uematsu, Machine Learning 2013:
//   L(W) = (1/n) sum_i sum_{r != y_i} max(1 - (W_:y_i - W_:r) . x_i, 0)^2,
// with the partial gradient and curvature of Algorithm 3 (block j in O(nnz_j (K-1))).
#include <cmath>

#include "block_loss/block_loss_impl.hpp"
#include "dualgap/plugin.hpp"
#include "simd/clones.hpp"

namespace {

// The two column sweeps of BCD (Algorithm 3), flat and branch-free so that the K-loop
// vectorizes: every class r is computed (r = y_i included, whose margin A_iy = 1 - s_y + s_y = 1
// is then taken out again), max(A, 0) and [A > 0] replace the paper's test "A_ir > 0". One
// clone per instruction set (AVX2+FMA, baseline), chosen once at load time (simd/clones.hpp).

// G[r] += x max(A_ir, 0), h[r] += x^2 [A_ir > 0] (r != y_i); G[y_i] -= x sum_{r != y_i} max(A_ir, 0),
// h[y_i] += x^2 #{r != y_i : A_ir > 0}; over the nnz non-zeros (idx, val) of one column.
DUALGAP_SIMD_CLONES
void sq_hinge_grad_sweep(const int* idx, const double* val, int nnz, const double* S, const int* y,
                         int K, double* __restrict G, double* __restrict h) {
  for (int k = 0; k < nnz; ++k) {
    const int i = idx[k];
    const double x = val[k], xx = x * x;
    const double* __restrict s = S + static_cast<std::size_t>(i) * K;
    const int yi = y[i];
    const double c = 1.0 - s[yi];
    double sa = 0, sh = 0;
#pragma omp simd reduction(+ : sa, sh)
    for (int r = 0; r < K; ++r) {
      const double a = c + s[r];
      const double ap = a > 0 ? a : 0.0;
      const double hx = a > 0 ? xx : 0.0;  // (selecting x^2 directly: 6x faster than x^2 * [a > 0])
      G[r] += x * ap;
      h[r] += hx;
      sa += ap;
      sh += hx;
    }
    // Take out the r = y_i term the loop added (A_iy = 1 > 0), then add the y_i column:
    // G[y_i] -= x sum_{r != y_i} max(A_ir, 0), h[y_i] += x^2 #{r != y_i : A_ir > 0}.
    const double ay = c + s[yi];
    G[yi] -= x * ay + x * (sa - ay);
    h[yi] += sh - 2.0 * xx;
  }
}

// s_i += x_ij delta for the non-zeros of column j; returns the change of
// sum_i sum_{r != y_i} max(A_ir, 0)^2 (old and new margin in the same loop).
DUALGAP_SIMD_CLONES
double sq_hinge_update_sweep(const int* idx, const double* val, int nnz, double* S, const int* y,
                             int K, const double* __restrict delta) {
  double change = 0;
  for (int k = 0; k < nnz; ++k) {
    const int i = idx[k];
    const double x = val[k];
    double* __restrict s = S + static_cast<std::size_t>(i) * K;
    const int yi = y[i];
    const double sy = s[yi], sy_new = sy + x * delta[yi];
    const double c = 1.0 - sy, cn = 1.0 - sy_new;
    double ch = 0;
#pragma omp simd reduction(+ : ch)
    for (int r = 0; r < K; ++r) {
      const double sr = s[r];
      const double a = c + sr;
      const double sn = sr + x * delta[r];
      s[r] = sn;
      const double b = cn + sn;
      // max(., 0) as (t + |t|) / 2 (exact): with a select next to the store above, GCC 12
      // reports "control flow in loop" and does not vectorize.
      const double ap = 0.5 * (a + std::fabs(a));
      const double bp = 0.5 * (b + std::fabs(b));
      ch += bp * bp - ap * ap;
    }
    // The r = y_i term (A = 1 before and after, up to round-off): take it out exactly.
    const double ay = c + sy, by = cn + sy_new;
    change += ch - (by * by - ay * ay);
  }
  return change;
}

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
  // Column kernels (see above); grad_sweep returns the factor of the loss (2) for G and h.
  static double grad_sweep(const int* idx, const double* val, int nnz, const double* S, const int* y, int K,
                           double* G, double* h) {
    sq_hinge_grad_sweep(idx, val, nnz, S, y, K, G, h);
    return 2.0;
  }
  static double update_sweep(const int* idx, const double* val, int nnz, double* S, const int* y, int K,
                             const double* delta) {
    return sq_hinge_update_sweep(idx, val, nnz, S, y, K, delta);
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
  return dualgap::describe_oracle<dualgap::block_loss_detail::BlockLossImpl<MulticlassSqHinge>>(
      "multiclass_sq_hinge", "1.0.0",
      "Multiclass squared hinge loss with block gradients (Blondel et al., Machine Learning 2013, eq. 2, Algorithm 3)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
