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

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define DUALGAP_UNARY_AVX2 1
#include <immintrin.h>
#endif

#include "dualgap/data.hpp"
#include "dualgap/oracle.hpp"

namespace dualgap {

struct Labeling {
  std::vector<int> labels;  ///< one label per unit of the example
  double loss = 0;          ///< Delta(y_i, labels)
  double constant = 0;      ///< c(labels), the w-independent score
};

namespace detail {

#ifdef DUALGAP_UNARY_AVX2
// S[u*K + k] = <x_u, w_k> for U rows x_u (row-major, stride d) and K rows w_k (stride d), with
// AVX2 and FMA, register-blocked: NU units x NK classes per sweep over the features (NU*NK
// independent accumulators, NU + NK loads per NU*NK fused multiply-adds, no packing). Used by
// unary_scores when the CPU has AVX2 and FMA but not AVX-512F (checked at run time, so the
// plugins stay buildable and runnable on any x86-64): on OCR-sized calls (7 x 128 x 26) it takes about a
// third of the time of Eigen's GEMM at -O3 without -march (which packs both operands per call).
__attribute__((target("avx2,fma"))) inline double hsum_avx2(__m256d v) {
  __m128d lo = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(lo, _mm_unpackhi_pd(lo, lo)));
}
template <int NU, int NK>
__attribute__((target("avx2,fma"), always_inline)) inline void unary_block_avx2(
    const double* X, const double* W, std::ptrdiff_t u, int k, int K, std::ptrdiff_t d, double* S) {
  const std::ptrdiff_t d4 = d & ~std::ptrdiff_t{3};
  const double* xb = X + u * d;
  const double* wb = W + static_cast<std::ptrdiff_t>(k) * d;
  __m256d acc[NU][NK];
  for (int a = 0; a < NU; ++a)
    for (int c = 0; c < NK; ++c) acc[a][c] = _mm256_setzero_pd();
  for (std::ptrdiff_t j = 0; j < d4; j += 4) {
    __m256d wv[NK];
    for (int c = 0; c < NK; ++c) wv[c] = _mm256_loadu_pd(wb + c * d + j);
    for (int a = 0; a < NU; ++a) {
      const __m256d xv = _mm256_loadu_pd(xb + a * d + j);
      for (int c = 0; c < NK; ++c) acc[a][c] = _mm256_fmadd_pd(xv, wv[c], acc[a][c]);
    }
  }
  for (int a = 0; a < NU; ++a)
    for (int c = 0; c < NK; ++c) {
      double r = hsum_avx2(acc[a][c]);
      for (std::ptrdiff_t j = d4; j < d; ++j) r += xb[a * d + j] * wb[c * d + j];
      S[(u + a) * K + k + c] = r;
    }
}
/// NU units, all K classes: blocks of NK classes, then 2, then 1.
template <int NU, int NK>
__attribute__((target("avx2,fma"), always_inline)) inline void unary_rows_avx2(
    const double* X, const double* W, std::ptrdiff_t u, int K, std::ptrdiff_t d, double* S) {
  int k = 0;
  for (; k + NK <= K; k += NK) unary_block_avx2<NU, NK>(X, W, u, k, K, d, S);
  for (; k + 2 <= K; k += 2) unary_block_avx2<NU, 2>(X, W, u, k, K, d, S);
  for (; k < K; ++k) unary_block_avx2<NU, 1>(X, W, u, k, K, d, S);
}
__attribute__((target("avx2,fma"))) inline void unary_scores_avx2(const double* X, const double* W,
                                                                   std::ptrdiff_t U, int K,
                                                                   std::ptrdiff_t d, double* S) {
  std::ptrdiff_t u = 0;
  for (; u + 3 <= U; u += 3) unary_rows_avx2<3, 4>(X, W, u, K, d, S);
  if (U - u == 2) unary_rows_avx2<2, 6>(X, W, u, K, d, S);
  else if (U - u == 1) unary_rows_avx2<1, 8>(X, W, u, K, d, S);
}
// The same with AVX-512F (eight doubles per register, 32 registers: 4 units x 6 classes), used
// when the CPU has it; on OCR-sized calls about 1.6x faster than the AVX2 kernel.
template <int NU, int NK>
__attribute__((target("avx512f"), always_inline)) inline void unary_block_avx512(
    const double* X, const double* W, std::ptrdiff_t u, int k, int K, std::ptrdiff_t d, double* S) {
  const std::ptrdiff_t d8 = d & ~std::ptrdiff_t{7};
  const double* xb = X + u * d;
  const double* wb = W + static_cast<std::ptrdiff_t>(k) * d;
  __m512d acc[NU][NK];
  for (int a = 0; a < NU; ++a)
    for (int c = 0; c < NK; ++c) acc[a][c] = _mm512_setzero_pd();
  for (std::ptrdiff_t j = 0; j < d8; j += 8) {
    __m512d wv[NK];
    for (int c = 0; c < NK; ++c) wv[c] = _mm512_loadu_pd(wb + c * d + j);
    for (int a = 0; a < NU; ++a) {
      const __m512d xv = _mm512_loadu_pd(xb + a * d + j);
      for (int c = 0; c < NK; ++c) acc[a][c] = _mm512_fmadd_pd(xv, wv[c], acc[a][c]);
    }
  }
  for (int a = 0; a < NU; ++a)
    for (int c = 0; c < NK; ++c) {
      double r = _mm512_reduce_add_pd(acc[a][c]);
      for (std::ptrdiff_t j = d8; j < d; ++j) r += xb[a * d + j] * wb[c * d + j];
      S[(u + a) * K + k + c] = r;
    }
}
template <int NU, int NK>
__attribute__((target("avx512f"), always_inline)) inline void unary_rows_avx512(
    const double* X, const double* W, std::ptrdiff_t u, int K, std::ptrdiff_t d, double* S) {
  int k = 0;
  for (; k + NK <= K; k += NK) unary_block_avx512<NU, NK>(X, W, u, k, K, d, S);
  for (; k + 2 <= K; k += 2) unary_block_avx512<NU, 2>(X, W, u, k, K, d, S);
  for (; k < K; ++k) unary_block_avx512<NU, 1>(X, W, u, k, K, d, S);
}
__attribute__((target("avx512f"))) inline void unary_scores_avx512(const double* X, const double* W,
                                                                    std::ptrdiff_t U, int K,
                                                                    std::ptrdiff_t d, double* S) {
  std::ptrdiff_t u = 0;
  for (; u + 4 <= U; u += 4) unary_rows_avx512<4, 6>(X, W, u, K, d, S);
  if (U - u == 3) unary_rows_avx512<3, 8>(X, W, u, K, d, S);
  else if (U - u == 2) unary_rows_avx512<2, 8>(X, W, u, K, d, S);
  else if (U - u == 1) unary_rows_avx512<1, 8>(X, W, u, K, d, S);
}
/// 2: AVX-512F, 1: AVX2 + FMA, 0: neither (checked once).
inline int unary_simd_level() {
  static const int level = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 2;
    return (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
  }();
  return level;
}
#endif

}  // namespace detail

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
  /// Prediction (no loss term) at w.
  void decode(const Examples& ex, std::size_t i, const Vector& w, Labeling& out,
              std::vector<double>& scores) {
    CallScope scope(*this, CallKind::exact);
    solve(ex, i, w, false, out, scores);
  }

  /// unary[u*K + k] = <w_k, x_u> for the units of example i.
  static void unary_scores(const Examples& ex, std::size_t i, const Vector& w,
                           std::vector<double>& unary) {
    const int K = ex.num_classes;
    const auto d = ex.num_features();
    const auto b = ex.unit_begin(i), e = ex.unit_end(i);
    unary.resize(static_cast<std::size_t>((e - b) * K));
    if (!ex.X.is_sparse()) {
#ifdef DUALGAP_UNARY_AVX2
      if (const int level = detail::unary_simd_level()) {
        const auto& X = ex.X.dense();
        const double* Xi = X.data() + b * X.outerStride();
        if (level == 2)
          detail::unary_scores_avx512(Xi, w.data(), e - b, K, static_cast<std::ptrdiff_t>(d), unary.data());
        else
          detail::unary_scores_avx2(Xi, w.data(), e - b, K, static_cast<std::ptrdiff_t>(d), unary.data());
        return;
      }
#endif
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> W(
          w.data(), K, d);
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> S(
          unary.data(), e - b, K);
      S.noalias() = ex.X.dense().middleRows(b, e - b) * W.transpose();
    } else {
      for (auto u = b; u < e; ++u)
        for (int k = 0; k < K; ++k)
          unary[(u - b) * K + k] = ex.X.row_dot(u, w.data() + static_cast<std::size_t>(k) * d);
    }
  }

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
    out.labels.resize(static_cast<std::size_t>(ex.units_of(i)));
    argmax(ex, i, scores.data(), T, loss_augmented, out);
    out.loss = loss(ex, i, out.labels.data());
    out.constant = constant(ex, i, out.labels.data());
  }
};

}  // namespace dualgap
