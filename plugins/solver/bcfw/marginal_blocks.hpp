// Marginal-table block storage of the structural SVM dual (dual_state.hpp), the default for
// Frank-Wolfe block steps (the loop of mp_bcfw.hpp, through the interface it names there).
//
// Representation (why: memory and speed). phi(x_i, y) = A_i^T m(y), where m(y) is the indicator
// table of the labeling (units_i x K) plus its K x K pair-count table, and A_i maps a table to
// feature space through the unit rows x_u. So phi^i is kept as its *marginal table* mbar_i (a
// convex combination of indicator tables) plus the pair table and the scalar offset part; only
// the global w = -phi_star / lambda and phi_circ are dense. A step never builds a dense plane:
//   Delta m = mbar_i - m(yhat),  <A_i^T Delta m, w> = <Delta m, S>  (S = unary scores of w),
//   ||A_i^T Delta m||^2 = sum_k Dm_k^T G_i Dm_k  (G_i = Gram matrix of the units of example i)
// or, for one unit, ||x_i||^2 ||Delta m||^2.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "dual_state.hpp"
#include "dualgap/iterate.hpp"
#include "prefetch.hpp"
#include "simd/clones.hpp"
#include "support_scores.hpp"
#include "working_set.hpp"

namespace dualgap_bcfw {

namespace detail {

// w[0..d) += sum_{q < m} c[q] x_q[0..d): four rows per sweep over w (a quarter of the loads and
// stores of w that one axpy per row needs); the loop over j vectorizes (AVX2 + FMA clone when the
// CPU has them, plugins/lib/simd/clones.hpp).
DUALGAP_SIMD_CLONES inline void axpy_rows(double* w, const double* c, const double* const* x, int m,
                                          std::size_t d) {
  int q = 0;
  for (; q + 4 <= m; q += 4) {
    const double c0 = c[q], c1 = c[q + 1], c2 = c[q + 2], c3 = c[q + 3];
    const double *x0 = x[q], *x1 = x[q + 1], *x2 = x[q + 2], *x3 = x[q + 3];
    for (std::size_t j = 0; j < d; ++j) w[j] += c0 * x0[j] + c1 * x1[j] + c2 * x2[j] + c3 * x3[j];
  }
  if (m - q == 3) {
    const double c0 = c[q], c1 = c[q + 1], c2 = c[q + 2];
    const double *x0 = x[q], *x1 = x[q + 1], *x2 = x[q + 2];
    for (std::size_t j = 0; j < d; ++j) w[j] += c0 * x0[j] + c1 * x1[j] + c2 * x2[j];
  } else if (m - q == 2) {
    const double c0 = c[q], c1 = c[q + 1];
    const double *x0 = x[q], *x1 = x[q + 1];
    for (std::size_t j = 0; j < d; ++j) w[j] += c0 * x0[j] + c1 * x1[j];
  } else if (m - q == 1) {
    const double c0 = c[q];
    const double* x0 = x[q];
    for (std::size_t j = 0; j < d; ++j) w[j] += c0 * x0[j];
  }
}

}  // namespace detail

class MarginalBlocks : public DualState {
 public:
  /// Gram matrices (units_i^2 doubles) are kept for examples with 2..gram_max_units units;
  /// longer examples build the change A_i^T Delta m class by class to take its norm.
  /// support_scores: approximate calls compute only the scores their step reads
  /// (support_scores.hpp; option approx_scores, off with inner steps, which need the whole table).
  MarginalBlocks(const Examples& ex, const StructuredOracle& oracle, double lambda, int gram_max_units,
                 bool support_scores = true)
      : DualState(ex, oracle, lambda), gram_max_(gram_max_units), trans_(oracle.uses_transitions()) {
    support_.enable(support_scores);
    const std::size_t KK = static_cast<std::size_t>(K_) * K_;
    gram_offset_.resize(n_ + 1, 0);
    std::size_t max_units = 1;
    for (std::size_t i = 0; i < n_; ++i) {
      const auto U = static_cast<std::size_t>(ex.units_of(i));
      max_units = std::max(max_units, U);
      gram_offset_[i + 1] = gram_offset_[i] + ((U > 1 && U <= static_cast<std::size_t>(gram_max_)) ? U * U : 0);
    }
    mbar_.resize(n_);
    mpos_.assign(max_units * K_, 0);
    if (trans_) pbar_.resize(n_), ppos_.assign(KK, 0);
    gram_.assign(gram_offset_[n_], 0.0);
    sq_norm_.assign(n_, 0.0);
    max_units_ = max_units;
    bcount_.assign(static_cast<std::size_t>(K_), 0);
    bu_.assign(static_cast<std::size_t>(K_) * max_units, 0);
    bv_.assign(static_cast<std::size_t>(K_) * max_units, 0.0);
    if (trans_) {
      dp_.assign(KK, 0.0);
      dp_mark_.assign(KK, 0);
      dp_idx_.reserve(KK);
    }
    dense_.assign(d_, 0.0);
    coef_.assign(max_units, 0.0);
    row_.assign(max_units, nullptr);
    active_.reserve(static_cast<std::size_t>(K_));
    for (std::size_t i = 0; i < n_; ++i) {
      const auto b = ex.unit_begin(i);
      const int U = ex.units_of(i);
      const int* yi = ex.y.data() + b;
      // Algorithm 2, line 1: phi^i = phi^{i y_i}: the indicator tables of y_i.
      for (int u = 0; u < U; ++u) mbar_[i].push_back(MEntry{u, yi[u], 1.0});
      if (trans_) {
        auto& P = pbar_[i];
        StructuredOracle::for_each_pair(ex, i, [&](int a, int c) {
          const int t = yi[a] * K_ + yi[c];
          auto it = std::find_if(P.begin(), P.end(), [t](const PEntry& e) { return e.t == t; });
          if (it == P.end()) P.push_back(PEntry{t, 1.0});
          else it->v += 1.0;
        });
      }
      if (U == 1) {
        sq_norm_[i] = ex.X.row_sq_norm(b);
      } else if (U <= gram_max_) {
        double* G = gram_.data() + gram_offset_[i];
        for (int a = 0; a < U; ++a)
          for (int c = a; c < U; ++c) {
            const double g = row_row_dot(b + a, b + c);
            G[a * U + c] = G[c * U + a] = g;
          }
      }
    }
  }

  // ---- the Frank-Wolfe storage interface (FrankWolfeBlocks, mp_bcfw.hpp) -------------------
  /// Recorded in the column dense_blocks.
  static constexpr bool kDense = false;
  /// A plane is its labeling: working sets keep no feature vector.
  std::size_t plane_size() const { return 0; }
  const double* plane_features(std::size_t /*i*/, const int* /*y*/) const { return nullptr; }
  /// BCFW step on block i towards `target` (its labeling and offset), S the unary score table of
  /// example i at w. Returns gamma.
  double step(std::size_t i, const Plane& target, const double* S) {
    return step(i, target.labels, target.offset, S);
  }
  /// H~_i(w) = max over W_i (equation (6)): the index of the best plane of W_i. Leaves in S the
  /// unary scores of example i at w that the step towards it reads (only those with
  /// support_scores, support_scores.hpp; else the whole table).
  std::size_t best_plane(const WorkingSets& ws, std::size_t i, std::vector<double>& S) {
    if (!support_.fill(ex_, *this, ws, i, S)) StructuredOracle::unary_scores(ex_, i, w, S);
    return ws.argmax(*this, i, S.data());
  }
  /// Asks for what an approximate call on block i reads from memory: the example's feature
  /// rows (a hint; changes no number).
  void prefetch_approximate(std::size_t i) const { prefetch_example(ex_, i); }
  /// The record's columns about approximate calls: approx_scores, the mean number of unary
  /// scores a call computed.
  void approximate_columns(dualgap::Iterate& it) const { it.set("approx_scores", support_.mean_computed()); }

  /// Calls f(u, k) for every stored entry of example i's marginal table mbar_i (its support:
  /// the only entries besides the target's labels that a step on block i reads from S).
  template <class F>
  void for_each_support(std::size_t i, F&& f) const {
    for (const MEntry& e : mbar_[i]) f(e.u, e.k);
  }

  /// Score <w, phi(x_i, y)> of a labeling from the unary score table S of w for example i.
  double score(std::size_t i, const int* y, const double* S) const {
    const int U = ex_.units_of(i);
    // Two independent sums (unary, pairs): half the dependent-add chain of one accumulator.
    double s = 0, t = 0;
    for (int u = 0; u < U; ++u) s += S[u * K_ + y[u]];
    if (trans_) {
      const double* T = w.data() + static_cast<std::size_t>(K_) * d_;
      StructuredOracle::for_each_pair(ex_, i, [&](int a, int c) { t += T[y[a] * K_ + y[c]]; });
    }
    return s + t;
  }

  /// BCFW step on block i towards the plane of labeling yhat with offset
  /// Delta(y_i, yhat) + c(yhat) - c(y_i), given the unary score table S of the current w.
  /// Updates mbar_i, the block offset, w and phi_circ; returns the step size gamma and keeps
  /// the change so add_last_change() can replay it onto other vectors (the averages).
  double step(std::size_t i, const int* yhat, double offset, const double* S) {
    const int U = ex_.units_of(i);
    // Delta m = mbar_i - m(yhat): the marginal table moves by -gamma Delta m. Only the stored
    // entries of mbar_i and the entries of yhat can be nonzero.
    index(i);
    clear_dm();
    for (const MEntry& e : mbar_[i]) {
      const double v = e.v - (e.k == yhat[e.u] ? 1.0 : 0.0);
      if (v != 0.0) dm_add(e.k, e.u, v);
    }
    for (int u = 0; u < U; ++u)
      if (!mpos_[u * K_ + yhat[u]]) dm_add(yhat[u], u, -1.0);
    if (trans_) {
      clear_dp();
      for (const PEntry& e : pbar_[i]) dp_touch(e.t), dp_[e.t] = e.v;
      StructuredOracle::for_each_pair(ex_, i, [&](int a, int c) {
        const int t = yhat[a] * K_ + yhat[c];
        dp_touch(t);
        dp_[t] -= 1.0;
      });
    }
    const double gamma = apply(i, offset - cbar_[i], 1.0, S);
    unindex(i);
    return gamma;
  }

  /// Pairwise step on block i (Lacoste-Julien and Jaggi, NeurIPS 2015): moves weight gamma in
  /// [0, gamma_max] from the plane of labeling ya (offset off_a) to the plane of labeling ys
  /// (offset off_s), with exact line search. The caller guarantees that phi^i holds at least
  /// gamma_max of plane ya (so phi^i stays a convex combination of planes). Returns gamma.
  double pair_step(std::size_t i, const int* ys, double off_s, const int* ya, double off_a,
                   const double* S, double gamma_max) {
    const int U = ex_.units_of(i);
    index(i);
    clear_dm();
    for (int u = 0; u < U; ++u)
      if (ya[u] != ys[u]) dm_add(ya[u], u, 1.0), dm_add(ys[u], u, -1.0);
    if (trans_) {
      clear_dp();
      StructuredOracle::for_each_pair(ex_, i, [&](int a, int c) {
        const int ta = ya[a] * K_ + ya[c], ts = ys[a] * K_ + ys[c];
        dp_touch(ta), dp_touch(ts);
        dp_[ta] += 1.0;
        dp_[ts] -= 1.0;
      });
    }
    const double gamma = apply(i, off_s - off_a, gamma_max, S);
    unindex(i);
    return gamma;
  }

  /// Adds the change of the unary scores of example i caused by the last step to S
  /// (S[u,k] += scale sum_c G[u,c] Dm[c,k]; one unit: ||x_i||^2 scale Dm[k]). Returns false
  /// when example i has no Gram matrix (then the caller recomputes S from w).
  bool update_scores(std::size_t i, double* S) const {
    if (last_scale_ == 0.0) return true;
    const int U = ex_.units_of(i);
    if (U == 1) {
      const double s = last_scale_ * sq_norm_[i];
      for (int k : active_) S[k] += s * bv_[bucket(k)];
      return true;
    }
    if (U > gram_max_) return false;
    const double* G = gram_.data() + gram_offset_[i];
    for (int k : active_) {
      const int* bu = bu_.data() + bucket(k);
      const double* bv = bv_.data() + bucket(k);
      const int m = bcount_[k];
      for (int a = 0; a < U; ++a) {
        const double* Ga = G + a * U;
        double row = 0;
        for (int q = 0; q < m; ++q) row += Ga[bu[q]] * bv[q];
        S[a * K_ + k] += last_scale_ * row;
      }
    }
    return true;
  }

  // ---- mini-batch steps (minibatch.hpp) ---------------------------------------------------
  /// A block's change in a mini-batch: Delta m = mbar_i - m(yhat) as its nonzero entries and
  /// the pair-table change, with the worker's own scratch tables.
  struct Direction : BlockChange {
    std::vector<std::pair<int, int>> dm_at;  ///< (unit, class) of each nonzero of Delta m
    std::vector<double> dm;                  ///< its value
    std::vector<std::pair<int, double>> dp;  ///< (pair index a K + b, value) of the pair change
    std::vector<int> mark;                   ///< scratch, units x K
    std::vector<double> pair;                ///< scratch, K x K
    std::vector<int> pair_idx;               ///< entries of `pair` that may be nonzero
    std::vector<unsigned char> pair_mark, seg_mark;
  };
  /// Builds the change of a step on block i towards the plane of labeling yhat (offset
  /// Delta + c(yhat) - c(y_i)), with S the unary score table of w for example i: Delta m, the
  /// pair change, lin = <Delta m, S> + <dp, W_trans>, doff, and Delta = A_i^T Delta m (+ dp)
  /// densely over its class blocks. Reads the state only: several threads may build the changes
  /// of distinct blocks at once.
  void direction(std::size_t i, const int* yhat, double offset, const double* S, Direction& c) const {
    clear_change(c);
    const int U = ex_.units_of(i);
    const std::size_t KK = static_cast<std::size_t>(K_) * K_;
    if (c.mark.size() < max_units_ * K_) c.mark.assign(max_units_ * K_, 0);
    if (c.seg_mark.size() != static_cast<std::size_t>(num_segments())) c.seg_mark.assign(num_segments(), 0);
    c.dm_at.clear(), c.dm.clear(), c.dp.clear();
    for (const MEntry& e : mbar_[i]) {
      c.mark[e.u * K_ + e.k] = 1;
      const double v = e.v - (e.k == yhat[e.u] ? 1.0 : 0.0);
      if (v != 0.0) c.dm_at.emplace_back(e.u, e.k), c.dm.push_back(v);
    }
    for (int u = 0; u < U; ++u)
      if (!c.mark[u * K_ + yhat[u]]) c.dm_at.emplace_back(u, yhat[u]), c.dm.push_back(-1.0);
    for (const MEntry& e : mbar_[i]) c.mark[e.u * K_ + e.k] = 0;
    double lin = 0;
    for (std::size_t q = 0; q < c.dm.size(); ++q) lin += c.dm[q] * S[c.dm_at[q].first * K_ + c.dm_at[q].second];
    // Delta = A_i^T Delta m: row u of X into class block k, for each nonzero (u, k).
    const auto b = ex_.unit_begin(i);
    for (std::size_t q = 0; q < c.dm.size(); ++q) {
      const int k = c.dm_at[q].second;
      if (!c.seg_mark[k]) c.seg_mark[k] = 1, c.segs.push_back(k);
      ex_.X.row_axpy(b + c.dm_at[q].first, c.dm[q], c.delta.data() + segment_begin(k));
    }
    if (trans_) {
      if (c.pair.size() != KK) c.pair.assign(KK, 0.0), c.pair_mark.assign(KK, 0);
      auto touch = [&](int t) {
        if (!c.pair_mark[t]) c.pair_mark[t] = 1, c.pair_idx.push_back(t);
      };
      c.pair_idx.clear();
      for (const PEntry& e : pbar_[i]) touch(e.t), c.pair[e.t] += e.v;
      StructuredOracle::for_each_pair(ex_, i, [&](int a, int cc) {
        const int t = yhat[a] * K_ + yhat[cc];
        touch(t);
        c.pair[t] -= 1.0;
      });
      const double* T = w.data() + static_cast<std::size_t>(K_) * d_;
      double* D = c.delta.data() + segment_begin(K_);
      for (int t : c.pair_idx) {
        const double v = c.pair[t];
        c.pair[t] = 0.0, c.pair_mark[t] = 0;
        if (v == 0.0) continue;
        c.dp.emplace_back(t, v);
        lin += v * T[t];
        D[t] = v;
      }
      if (!c.dp.empty()) c.segs.push_back(K_);
    }
    for (int k : c.segs) c.seg_mark[k] = 0;
    c.lin = lin;
    c.doff = offset - cbar_[i];
  }
  /// Moves block i by gamma along its change c (mbar_i -= gamma Delta m, the pair table, the
  /// offsets); w is moved by the caller (the summed change of the batch). Serial.
  void move_block(std::size_t i, double gamma, const Direction& c) {
    index(i);
    auto& mb = mbar_[i];
    for (std::size_t q = 0; q < c.dm.size(); ++q) {
      const auto [u, k] = c.dm_at[q];
      int& pos = mpos_[u * K_ + k];
      if (pos) {
        mb[static_cast<std::size_t>(pos - 1)].v -= gamma * c.dm[q];
      } else {
        mb.push_back(MEntry{u, k, 0.0 - gamma * c.dm[q]});
        pos = static_cast<int>(mb.size());
      }
    }
    if (trans_) {
      auto& pb = pbar_[i];
      for (const auto& [t, v] : c.dp) {
        int& pos = ppos_[t];
        if (pos) {
          pb[static_cast<std::size_t>(pos - 1)].v -= gamma * v;
        } else {
          pb.push_back(PEntry{t, 0.0 - gamma * v});
          pos = static_cast<int>(pb.size());
        }
      }
    }
    unindex(i);
    move_block_offset(i, gamma, c.doff);
  }

  /// target += coef * (w after the last step - w before it). No-op if the last step was null.
  void add_last_change(double* target, double coef) const {
    const double s = coef * last_scale_;
    if (s == 0.0) return;
    const auto b = ex_.unit_begin(last_block_);
    if (!ex_.X.is_sparse()) {
      // Dense rows: w_k += sum_u (s Dm[u,k]) x_u over the nonzeros of column Dm_k.
      const double* X0 = ex_.X.dense().data() + static_cast<std::size_t>(b) * d_;
      for (int k : active_) {
        double* wk = target + static_cast<std::size_t>(k) * d_;
        const int m = bcount_[k];
        for (int q = 0; q < m; ++q)
          coef_[q] = s * bv_[bucket(k) + q], row_[q] = X0 + static_cast<std::size_t>(bu_[bucket(k) + q]) * d_;
        detail::axpy_rows(wk, coef_.data(), row_.data(), m, d_);
      }
    } else {
      for (int k : active_) {
        double* wk = target + static_cast<std::size_t>(k) * d_;
        for (int q = 0; q < bcount_[k]; ++q)
          ex_.X.row_axpy(b + bu_[bucket(k) + q], s * bv_[bucket(k) + q], wk);
      }
    }
    if (trans_) {
      double* T = target + static_cast<std::size_t>(K_) * d_;
      for (int t : dp_idx_) T[t] += s * dp_[t];
    }
  }

 private:
  /// Step along -Delta (Delta = [A_i^T Dm, dp_] in feature space; the block offset rises by
  /// gamma doff) with exact line search clipped to [0, gamma_max] (DualState::line_search).
  double apply(std::size_t i, double doff, double gamma_max, const double* S) {
    const int U = ex_.units_of(i);
    double lin = 0, norm2 = 0;
    for (int k : active_) {
      const int* bu = bu_.data() + bucket(k);
      const double* bv = bv_.data() + bucket(k);
      for (int q = 0; q < bcount_[k]; ++q) lin += bv[q] * S[bu[q] * K_ + k];
    }
    if (U == 1) {
      double s = 0;
      for (int k : active_) s += bv_[bucket(k)] * bv_[bucket(k)];
      norm2 = sq_norm_[i] * s;
    } else if (U <= gram_max_) {
      // sum_k Dm_k^T G Dm_k over the nonzeros of each column Dm_k.
      const double* G = gram_.data() + gram_offset_[i];
      for (int k : active_) {
        const int* bu = bu_.data() + bucket(k);
        const double* bv = bv_.data() + bucket(k);
        const int m = bcount_[k];
        for (int p = 0; p < m; ++p) {
          const double* Gp = G + bu[p] * U;
          double row = 0;
          for (int q = 0; q < m; ++q) row += Gp[bu[q]] * bv[q];
          norm2 += bv[p] * row;
        }
      }
    } else {
      const auto b = ex_.unit_begin(i);
      for (int k : active_) {
        std::fill(dense_.begin(), dense_.end(), 0.0);
        for (int q = 0; q < bcount_[k]; ++q)
          ex_.X.row_axpy(b + bu_[bucket(k) + q], bv_[bucket(k) + q], dense_.data());
        for (double v : dense_) norm2 += v * v;
      }
    }
    if (trans_) {
      const double* T = w.data() + static_cast<std::size_t>(K_) * d_;
      for (int t : dp_idx_) {
        lin += dp_[t] * T[t];
        norm2 += dp_[t] * dp_[t];
      }
    }
    const double gamma = line_search(i, lin - doff, norm2, gamma_max);
    if (gamma <= 0) return 0.0;

    auto& mb = mbar_[i];
    for (int k : active_) {
      const int* bu = bu_.data() + bucket(k);
      const double* bv = bv_.data() + bucket(k);
      for (int q = 0; q < bcount_[k]; ++q) {
        int& pos = mpos_[bu[q] * K_ + k];
        if (pos) {
          mb[static_cast<std::size_t>(pos - 1)].v -= gamma * bv[q];
        } else {
          mb.push_back(MEntry{bu[q], k, 0.0 - gamma * bv[q]});
          pos = static_cast<int>(mb.size());
        }
      }
    }
    if (trans_) {
      auto& pb = pbar_[i];
      for (int t : dp_idx_) {
        int& pos = ppos_[t];
        if (pos) {
          pb[static_cast<std::size_t>(pos - 1)].v -= gamma * dp_[t];
        } else {
          pb.push_back(PEntry{t, 0.0 - gamma * dp_[t]});
          pos = static_cast<int>(pb.size());
        }
      }
    }
    move_offsets(i, gamma, doff);
    add_last_change(w.data(), 1.0);
    return gamma;
  }

  // The marginal-table change Dm (units x K) is kept by class: active_ lists the classes k
  // whose column Dm_k is nonzero, and column k's nonzeros are (bu_, bv_)[bucket(k) + q] for
  // q < bcount_[k] (unit, value), units increasing. Built without a dense table.
  std::size_t bucket(int k) const { return static_cast<std::size_t>(k) * max_units_; }
  void clear_dm() {
    for (int k : active_) bcount_[k] = 0;
    active_.clear();
  }
  void dm_add(int k, int u, double v) {
    int& c = bcount_[k];
    if (c == 0) active_.push_back(k);
    bu_[bucket(k) + c] = u, bv_[bucket(k) + c] = v;
    ++c;
  }

  /// mpos_ / ppos_ map the entries of mbar_i / pbar_i to their positions + 1 during a step
  /// (scratch tables, zero outside a step).
  void index(std::size_t i) {
    const auto& mb = mbar_[i];
    for (std::size_t p = 0; p < mb.size(); ++p) mpos_[mb[p].u * K_ + mb[p].k] = static_cast<int>(p + 1);
    if (trans_) {
      const auto& pb = pbar_[i];
      for (std::size_t p = 0; p < pb.size(); ++p) ppos_[pb[p].t] = static_cast<int>(p + 1);
    }
  }
  /// Clears the scratch tables and drops entries that became exactly zero (they contribute
  /// nothing), so the stored tables stay as small as their support.
  void unindex(std::size_t i) {
    auto& mb = mbar_[i];
    for (const MEntry& e : mb) mpos_[e.u * K_ + e.k] = 0;
    mb.erase(std::remove_if(mb.begin(), mb.end(), [](const MEntry& e) { return e.v == 0.0; }), mb.end());
    if (trans_) {
      auto& pb = pbar_[i];
      for (const PEntry& e : pb) ppos_[e.t] = 0;
      pb.erase(std::remove_if(pb.begin(), pb.end(), [](const PEntry& e) { return e.v == 0.0; }), pb.end());
    }
  }

  // The pair-table change dp_ is sparse (at most the pairs of phi^i's support and of one or
  // two labelings): dp_idx_ lists the entries that may be nonzero, dp_ is zero elsewhere.
  void clear_dp() {
    for (int t : dp_idx_) dp_[t] = 0.0, dp_mark_[t] = 0;
    dp_idx_.clear();
  }
  void dp_touch(int t) {
    if (!dp_mark_[t]) dp_mark_[t] = 1, dp_idx_.push_back(t);
  }

  double row_row_dot(Eigen::Index a, Eigen::Index c) const {
    if (!ex_.X.is_sparse()) return ex_.X.dense().row(a).dot(ex_.X.dense().row(c));
    std::fill(dense_.begin(), dense_.end(), 0.0);
    ex_.X.row_axpy(a, 1.0, dense_.data());
    return ex_.X.row_dot(c, dense_.data());
  }

  int gram_max_;
  bool trans_;
  SupportScores support_;
  std::vector<std::size_t> gram_offset_;
  // phi^i's marginal table (units x K) and pair table (K x K) are stored sparse, as their
  // nonzero entries: a step reads a few contiguous entries instead of two dense tables (1.5 KB
  // and 5.4 KB per OCR word) scattered over megabytes.
  struct MEntry {
    int u, k;
    double v;
  };
  struct PEntry {
    int t;  ///< a * K + b
    double v;
  };
  std::vector<std::vector<MEntry>> mbar_;  ///< marginal table of each example, nonzero entries
  std::vector<std::vector<PEntry>> pbar_;  ///< pair table of each example (transitions only)
  std::vector<int> mpos_, ppos_;           ///< scratch: entry -> position + 1 (see index())
  std::vector<double> gram_;     ///< Gram matrices of examples with 2..gram_max_ units
  std::vector<double> sq_norm_;  ///< ||x_i||^2 of single-unit examples
  // scratch of the last step
  std::vector<double> dp_;
  std::size_t max_units_ = 1;
  std::vector<int> bcount_, bu_;  ///< Dm by class (see bucket())
  std::vector<double> bv_;
  mutable std::vector<double> dense_;
  mutable std::vector<double> coef_;        ///< add_last_change: s Dm[u,k] of the nonzero rows
  mutable std::vector<const double*> row_;  ///< add_last_change: those rows of X
  std::vector<int> dp_idx_;             ///< entries of dp_ that may be nonzero
  std::vector<unsigned char> dp_mark_;  ///< membership in dp_idx_

  std::vector<int> active_;
};

}  // namespace dualgap_bcfw
