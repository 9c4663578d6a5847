// Restricted master problem of MultiBoost-CW / MultiBoost and its two solvers (FCD, L-BFGS-B),
// shared by the multiboost_cw and multiboost plugins (target dualgap_lib_boosting).
//
//   min_{w >= 0}  P(w) = sum_j w_j + (C/p) sum_i sum_{y != y_i} exp(F_y(x_i) - F_{y_i}(x_i)),
//   F_c(x) = sum_{j : cls_j = c} w_j h_j(x),  p = n (K-1)                      eq. (2)/(7)
//
// of Lin et al., "Fast training of effective multi-class boosting using coordinate descent
// optimization", ACCV 2012. A column j is a weak learner h_j in {-1,+1} attached to class cls_j
// (MultiBoost's shared weak learner is K columns with the same h, one per class). The state
// keeps F, mu(i,y) = exp(F_y(x_i) - F_{y_i}(x_i)) (eq. 15; mu(i,y_i) = 0) and the row sums of
// mu, so a coordinate update costs O(n) (eq. 20) and so does V+/V- (eq. 21). Internally the
// examples are held sorted by class and F, mu are K x n (one contiguous row per class), so every
// kernel is a branch-free contiguous pass; the public interface (F(), y(), edge_weights, the
// columns' h) stays in the caller's example order.
//
// Dual (NOTES.md section 1): D(lambda) = sum lambda (1 - log(p/C) - log lambda) subject to
// lambda >= 0 and edge_c(h) <= 1 for every weak learner h of a given set. The KKT point
// lambda = (C/p) mu divided by s = max(1, best edge over the set) is feasible, hence
// D(lambda / s) = sum (C/(p s)) mu (1 + log s - log mu) is a certified lower bound on the
// optimum over that set. The recorded dual (all stumps) is computed by the core from the
// ensemble (core/src/objectives/boosting.cpp); dual() here serves the fixed-problem mode's
// restricted_dual column (the set = the master problem's columns) and the tests.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dualgap/data.hpp"
#include "dualgap/oracles/weak_learner.hpp"
#include "dualgap/random.hpp"

// Debian's liblbfgsb (L-BFGS-B 3.0, Zhu, Byrd, Lu, Nocedal; ACM TOMS 778) ships no C header:
// the Fortran 77 routine `setulb` with gfortran's calling convention (all by reference, hidden
// string lengths appended, LOGICAL = 4-byte int).
extern "C" void setulb_(int* n, int* m, double* x, double* l, double* u, int* nbd, double* f,
                        double* g, double* factr, double* pgtol, double* wa, int* iwa, char* task,
                        int* iprint, char* csave, int* lsave, int* isave, double* dsave,
                        std::size_t task_len, std::size_t csave_len);

namespace dualgap::boosting {

struct Column {
  Stump stump;
  int cls = 0;
  std::vector<signed char> h;  ///< h(x_i) on the training examples
};

class MasterProblem {
 public:
  MasterProblem(const std::vector<int>& y, int K, double C)
      : n_(static_cast<int>(y.size())), K_(K), C_(C), y_(y) {
    if (K < 2) throw std::invalid_argument("multi-class boosting needs at least 2 classes");
    for (int v : y_)
      if (v < 0 || v >= K_) throw std::invalid_argument("label out of range");
    p_ = static_cast<double>(n_) * (K_ - 1);
    cp_ = C_ / p_;
    // Internal example order: sorted by class (stable), so that the examples of class c are the
    // contiguous block [begin_[c], begin_[c+1]) and every kernel below is a contiguous pass.
    begin_.assign(static_cast<std::size_t>(K_) + 1, 0);
    for (int v : y_) ++begin_[static_cast<std::size_t>(v) + 1];
    for (int c = 0; c < K_; ++c) begin_[c + 1] += begin_[c];
    order_.resize(static_cast<std::size_t>(n_));
    std::vector<int> next(begin_.begin(), begin_.end() - 1);
    for (int i = 0; i < n_; ++i) order_[static_cast<std::size_t>(next[y_[i]]++)] = i;
    F_ = DenseMatrix::Zero(K_, n_);
    G_.resize(K_, n_);
    refresh();
  }

  int n() const { return n_; }
  int K() const { return K_; }
  double C() const { return C_; }
  double p() const { return p_; }
  std::size_t size() const { return cols_.size(); }
  const Column& column(std::size_t j) const { return cols_[j]; }
  const std::vector<double>& w() const { return w_; }
  /// F (n x K, examples in the caller's order).
  const DenseMatrix& F() const {
    Fout_.resize(n_, K_);
    for (int c = 0; c < K_; ++c)
      for (int q = 0; q < n_; ++q) Fout_(order_[q], c) = F_(c, q);
    return Fout_;
  }
  const std::vector<int>& y() const { return y_; }

  /// Adds a column with weight 0 (F unchanged). Returns its index.
  std::size_t add(Column c) {
    if (static_cast<int>(c.h.size()) != n_) throw std::invalid_argument("column of wrong length");
    if (c.cls < 0 || c.cls >= K_) throw std::invalid_argument("column class out of range");
    std::vector<signed char> h(static_cast<std::size_t>(n_));
    for (int q = 0; q < n_; ++q) h[q] = c.h[order_[q]] > 0 ? 1 : -1;
    hs_.push_back(std::move(h));
    cols_.push_back(std::move(c));
    w_.push_back(0.0);
    return cols_.size() - 1;
  }
  /// Index of an existing column with the same stump and class, or -1.
  long find(const Stump& s, int cls) const {
    for (std::size_t j = 0; j < cols_.size(); ++j) {
      const auto& t = cols_[j].stump;
      if (cols_[j].cls == cls && t.feature == s.feature && t.threshold == s.threshold &&
          t.sign == s.sign)
        return static_cast<long>(j);
    }
    return -1;
  }

  /// Recomputes mu (held in G) and its row sums from F (removes the drift of incremental updates).
  void refresh() {
    for (int k = 0; k < K_; ++k) {
      const double* fy = &F_(k, 0);
      for (int c = 0; c < K_; ++c) {
        if (c == k) continue;
        const double* fc = &F_(c, 0);
        double* g = &G_(c, 0);
        for (int q = begin_[k]; q < begin_[k + 1]; ++q) g[q] = -std::exp(fc[q] - fy[q]);
      }
      double* gk = &G_(k, 0);
      for (int q = begin_[k]; q < begin_[k + 1]; ++q) {
        double s = 0;
        for (int c = 0; c < K_; ++c)
          if (c != k) s -= G_(c, q);
        gk[q] = s;
      }
    }
  }
  /// Recomputes F from w (then mu).
  void recompute_F() {
    F_.setZero();
    for (std::size_t j = 0; j < cols_.size(); ++j) {
      const double wj = w_[j];
      if (wj == 0) continue;
      const signed char* h = hs_[j].data();
      double* f = &F_(cols_[j].cls, 0);
      for (int q = 0; q < n_; ++q) f[q] += wj * h[q];
    }
    refresh();
  }

  double loss_sum() const {
    double s = 0;
    for (int k = 0; k < K_; ++k)
      for (int q = begin_[k]; q < begin_[k + 1]; ++q) s += G_(k, q);
    return s;
  }
  /// P(w) of eq. (2) at the current state.
  double objective() const {
    double l1 = 0;
    for (double v : w_) l1 += v;
    return l1 + cp_ * loss_sum();
  }

  /// sum_{(i,y)} mu(i,y) dh_{i,j}(y) = S+ - S-, one branch-free dot product over n (see G_).
  /// (Kernels keep kLanes independent partial sums so that the compiler can use SIMD registers
  /// without reassociating a floating-point reduction.)
  double signed_sum(std::size_t j) const {
    const signed char* h = hs_[j].data();
    const double* g = &G_(cols_[j].cls, 0);
    double s[kLanes] = {};
    int i = 0;
    for (; i + kLanes <= n_; i += kLanes)
      for (int k = 0; k < kLanes; ++k) s[k] += h[i + k] * g[i + k];
    for (int k = 0; i < n_; ++i, ++k) s[k] += h[i] * g[i];
    return lane_sum(s);
  }
  /// S+ = sum of mu over D_{+1}^j, S- = sum over D_{-1}^j (eq. 21 without the exp(+-w_j)).
  /// Each is summed from non-negative terms (no cancellation, unlike (T +- (S+ - S-))/2):
  /// with a = h_i G(c,i), |a| + a is exactly 2a or 0 and |a| - a exactly 0 or -2a, branch-free.
  void sums(std::size_t j, double& splus, double& sminus) const {
    const signed char* h = hs_[j].data();
    const double* g = &G_(cols_[j].cls, 0);
    double sp[kLanes] = {}, sm[kLanes] = {};
    int i = 0;
    for (; i + kLanes <= n_; i += kLanes)
      for (int k = 0; k < kLanes; ++k) {
        const double a = h[i + k] * g[i + k], m = std::abs(a);
        sp[k] += m + a;
        sm[k] += m - a;
      }
    for (int k = 0; i < n_; ++i, ++k) {
      const double a = h[i] * g[i], m = std::abs(a);
      sp[k] += m + a;
      sm[k] += m - a;
    }
    splus = 0.5 * lane_sum(sp), sminus = 0.5 * lane_sum(sm);
  }
  /// Partial derivative of P with respect to w_j: 1 - (C/p)(S+ - S-).
  double gradient(std::size_t j) const { return 1.0 - cp_ * signed_sum(j); }
  /// KKT violation theta_j of eq. (16).
  double violation(std::size_t j) const {
    const double g = gradient(j);
    return w_[j] > 0 ? std::abs(g) : std::max(0.0, -g);
  }

  /// Sets w_j and updates F, mu and the row sums in O(n + n_c K) (eq. 20): two exp() per call,
  /// none per pair; every loop is a contiguous pass (examples are held sorted by class).
  void set_w(std::size_t j, double wn) {
    const double delta = wn - w_[j];
    if (delta == 0) return;
    w_[j] = wn;
    const signed char* h = hs_[j].data();
    const int c = cols_[j].cls;
    const double up = std::exp(delta), down = std::exp(-delta);
    double* fc = &F_(c, 0);
    for (int q = 0; q < n_; ++q) fc[q] += delta * h[q];
    double* gc = &G_(c, 0);
    for (int k = 0; k < K_; ++k) {
      const int b = begin_[k], e = begin_[k + 1];
      if (k == c) {
        // F_{y_i} moves by delta h_i: every mu(i, .) (and their sum) is multiplied by exp(-delta h_i).
        for (int r = 0; r < K_; ++r) {
          double* g = &G_(r, 0);
          for (int q = b; q < e; ++q) g[q] *= h[q] > 0 ? down : up;
        }
      } else {
        double* gk = &G_(k, 0);  // row sums of the examples of class k
        for (int q = b; q < e; ++q) {
          const double old = gc[q];  // -mu(i, c)
          const double nw = old * (h[q] > 0 ? up : down);
          gc[q] = nw;
          gk[q] -= nw - old;  // row sum += mu_new - mu_old
        }
      }
    }
  }

  /// Closed-form coordinate minimizer (eq. 12), or its large-C form (eq. 13).
  /// V+ = S+ exp(w_j), V- = S- exp(-w_j) (eq. 21).
  double coordinate_minimizer(std::size_t j, bool large_c) const {
    double sp, sm;
    sums(j, sp, sm);
    return closed_form(sp * std::exp(w_[j]), sm * std::exp(-w_[j]), p_ / C_, large_c);
  }
  /// argmin_{w >= 0} w + (1/a) (V- e^w + V+ e^-w), a = p/C.
  static double closed_form(double vplus, double vminus, double a, bool large_c) {
    if (!(vplus > 0)) return 0.0;
    if (!(vminus > 0)) return std::max(0.0, std::log(vplus / a));  // derivative 1 - V+ e^-w / a
    if (large_c) return std::max(0.0, 0.5 * (std::log(vplus) - std::log(vminus)));
    // sqrt(V+V- + a^2/4) - a/2, written without cancellation.
    const double pv = vplus * vminus, h = 0.5 * a;
    const double z = pv / (std::sqrt(pv + h * h) + h);
    return std::max(0.0, std::log(z) - std::log(vminus));
  }

  /// Oracle weight table W(i,c) = edge coefficient of lambda = (C/p) mu (eq. 4), caller's order.
  void edge_weights(DenseMatrix& W) const {
    W.resize(n_, K_);
    for (int c = 0; c < K_; ++c)
      for (int q = 0; q < n_; ++q) W(order_[q], c) = cp_ * G_(c, q);
  }
  /// Largest edge over the current columns: max_j (C/p)(S+ - S-) = max_j (1 - grad_j).
  double max_column_edge() const {
    double e = 0;
    for (std::size_t j = 0; j < cols_.size(); ++j) e = std::max(e, 1.0 - gradient(j));
    return e;
  }
  /// D(lambda / s) for lambda = (C/p) mu, s = max(1, max_edge). See the header comment.
  double dual(double max_edge) const {
    const double s = std::max(1.0, max_edge), ls = std::log(s);
    double sum = 0;
    for (int k = 0; k < K_; ++k)
      for (int q = begin_[k]; q < begin_[k + 1]; ++q) {
        const double fy = F_(k, q);
        for (int c = 0; c < K_; ++c) {
          if (c == k) continue;
          const double m = -G_(c, q);
          sum += m * (1.0 + ls - (F_(c, q) - fy));
        }
      }
    return cp_ / s * sum;
  }

  /// Mutable weight access for L-BFGS-B (call recompute_F afterwards).
  std::vector<double>& w_mut() { return w_; }

 private:
  static constexpr int kLanes = 8;
  static double lane_sum(const double* s) {
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  }
  int n_, K_;
  double C_, p_, cp_;
  std::vector<int> y_;       ///< labels, caller's order
  std::vector<int> order_;   ///< internal position q -> caller's example index (sorted by class)
  std::vector<int> begin_;   ///< examples of class c are the positions [begin_[c], begin_[c+1])
  std::vector<Column> cols_;
  std::vector<std::vector<signed char>> hs_;  ///< h of each column in the internal order
  std::vector<double> w_;
  DenseMatrix F_;             ///< K x n: F_(c, q) = F_c(x_{order_[q]}), one contiguous row per class
  mutable DenseMatrix Fout_;  ///< n x K copy in the caller's order (F())
  // G (K x n, one contiguous row per class) holds mu signed by its role in the edge of class c:
  // G(c, i) = sum_{y != y_i} mu(i, y) when c = y_i, and -mu(i, c) otherwise. Then for a column
  // j of class c, dh_{i,j}(y) mu(i,y) summed over the pairs of example i is exactly h_j(x_i) G(c,i),
  // so S+ - S- = h_j . G(c, :) and S+/S- are its positive/negative parts: a gradient or a V+/V-
  // costs one contiguous pass over n (the "cached per-class sums" of eq. 21).
  DenseMatrix G_;
};


// ---------------------------------------------------------------------------------------------
// FCD, Algorithm 2 of Lin et al. (ACCV 2012).

enum class FcdOrder {
  permutation,  ///< tau >= 2: the working set in a fresh random order each sweep (default)
  random,       ///< tau >= 2: |S| independent uniform picks (with replacement)
  cyclic        ///< tau >= 2: the working set in index order
};

struct FcdOptions {
  double eps = 0.1;       ///< KKT tolerance of the working set (17) and the stop rule (18)
  int tau_max = 2;        ///< maximum working-set iterations (<= 0: until (18))
  bool large_c = false;   ///< use update (13) instead of (12)
  FcdOrder order = FcdOrder::permutation;
  bool shrinking = true;  ///< rebuild S from the violations of S only until S is clean (see fcd())
};
struct FcdStats {
  int working_set_iterations = 0;
  long updates = 0;
  long violation_evaluations = 0;  ///< theta_j computed (each one pass over n)
  int full_checks = 0;             ///< KKT checks over all variables
  double max_violation = std::numeric_limits<double>::quiet_NaN();  ///< of the last full check; NaN: none
  bool converged = false;          ///< (18) held at the last full check
  std::vector<std::size_t> working_set;  ///< S after the last check (empty if none was made)
};

/// Runs FCD on `mp` warm-started at its current w. `first` is the initial working set (the
/// newly added columns), swept in order (tau = 1). After each sweep the next working set (17)
/// is built from the KKT violations (16):
///  - after the first sweep, and whenever the shrunk set below has become clean, over ALL
///    variables (a "full check"; (18) is only ever declared on a full check);
///  - otherwise (shrinking, as in the CD solvers of Yuan et al. 2010 that the paper follows),
///    only over the current S: S <- {j in S : theta_j > eps}. Variables outside S that become
///    violated through the updates are picked up by the next full check.
/// `shrinking = false` gives the paper's step 11 literally (a full check after every sweep).
/// Later sweeps visit S in the order `order`. `after_iteration(stats)` (optional) is called
/// after each working-set iteration and may return false to stop.
inline FcdStats fcd(MasterProblem& mp, std::vector<std::size_t> first, const FcdOptions& opt,
                    SplitMix64& rng,
                    const std::function<bool(const FcdStats&)>& after_iteration = {}) {
  FcdStats st;
  std::vector<std::size_t> S = std::move(first), next;
  for (int tau = 1;; ++tau) {
    const std::size_t q_end = S.size();
    if (tau > 1 && opt.order == FcdOrder::permutation) shuffle(S, rng);
    for (std::size_t q = 0; q < q_end; ++q) {
      const std::size_t j = tau > 1 && opt.order == FcdOrder::random ? S[rng.below(q_end)] : S[q];
      mp.set_w(j, mp.coordinate_minimizer(j, opt.large_c));
      ++st.updates;
    }
    st.working_set_iterations = tau;
    const bool last = opt.tau_max > 0 && tau >= opt.tau_max;
    if (last && !after_iteration) break;  // theta would be unused (CW-1: skip the O(n |H|) pass)
    next.clear();
    bool full = tau == 1 || !opt.shrinking;
    if (!full) {
      for (std::size_t j : S) {
        ++st.violation_evaluations;
        if (mp.violation(j) > opt.eps) next.push_back(j);
      }
      full = next.empty();
    }
    if (full) {
      next.clear();
      double mx = 0;
      for (std::size_t j = 0; j < mp.size(); ++j) {
        const double t = mp.violation(j);
        mx = std::max(mx, t);
        if (t > opt.eps) next.push_back(j);
      }
      st.violation_evaluations += static_cast<long>(mp.size());
      ++st.full_checks;
      st.max_violation = mx;
      st.converged = mx <= opt.eps;
    }
    S.swap(next);
    st.working_set = S;
    if (after_iteration && !after_iteration(st)) break;
    if (last || (full && st.converged)) break;  // (18)
  }
  return st;
}

// ---------------------------------------------------------------------------------------------
// L-BFGS-B (Zhu et al. 1997) on the same master problem: bound w >= 0, warm start at current w.

struct LbfgsbOptions {
  int m = 5;               ///< stored corrections (driver default)
  double factr = 1e7;      ///< relative reduction tolerance, in units of machine epsilon
  double pgtol = 1e-5;     ///< projected-gradient tolerance
  int max_iterations = 15000;
};
struct LbfgsbStats {
  int iterations = 0;
  int evaluations = 0;
  std::string task;  ///< L-BFGS-B's termination message
};

/// Minimizes P over w >= 0 from the current w. `after_iteration(iter)` (optional) is called
/// after each L-BFGS-B iteration, with mp holding that iterate; return false to stop.
inline LbfgsbStats lbfgsb(MasterProblem& mp, const LbfgsbOptions& opt,
                          const std::function<bool(int)>& after_iteration = {}) {
  LbfgsbStats st;
  int n = static_cast<int>(mp.size());
  if (n == 0) return st;
  int m = opt.m, iprint = -1;
  std::vector<double> x = mp.w(), l(n, 0.0), u(n, 0.0), g(n, 0.0);
  std::vector<int> nbd(n, 1), iwa(3 * static_cast<std::size_t>(n));
  std::vector<double> wa(2 * static_cast<std::size_t>(m) * n + 5 * static_cast<std::size_t>(n) +
                         11 * static_cast<std::size_t>(m) * m + 8 * static_cast<std::size_t>(m));
  char task[60], csave[60];
  int lsave[4], isave[44];
  double dsave[29];
  double f = 0, factr = opt.factr, pgtol = opt.pgtol;
  auto set_task = [&](const char* s) {
    std::memset(task, ' ', sizeof task);
    std::memcpy(task, s, std::strlen(s));
  };
  auto eval = [&] {
    std::copy(x.begin(), x.end(), mp.w_mut().begin());
    mp.recompute_F();
    f = mp.objective();
    for (int j = 0; j < n; ++j) g[j] = mp.gradient(j);
    ++st.evaluations;
  };
  set_task("START");
  for (;;) {
    setulb_(&n, &m, x.data(), l.data(), u.data(), nbd.data(), &f, g.data(), &factr, &pgtol,
            wa.data(), iwa.data(), task, &iprint, csave, lsave, isave, dsave, 60, 60);
    if (std::strncmp(task, "FG", 2) == 0) {
      eval();
    } else if (std::strncmp(task, "NEW_X", 5) == 0) {
      ++st.iterations;
      // mp holds the last evaluated point, which is the accepted iterate x.
      if (after_iteration && !after_iteration(st.iterations)) break;
      if (st.iterations >= opt.max_iterations) break;
    } else {
      break;  // CONVERGENCE, ABNORMAL_TERMINATION_IN_LNSRCH, ERROR, WARNING
    }
  }
  st.task.assign(task, 60);
  st.task.erase(st.task.find_last_not_of(' ') + 1);
  // Leave mp at x (the best point L-BFGS-B reports).
  std::copy(x.begin(), x.end(), mp.w_mut().begin());
  mp.recompute_F();
  return st;
}

}  // namespace dualgap::boosting
