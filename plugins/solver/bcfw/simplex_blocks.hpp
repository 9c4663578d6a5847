// Exact block steps for multi-class blocks (option block_step: exact): the block's sub-problem
// of the structural SVM dual solved in closed form instead of one Frank-Wolfe step towards the
// max-oracle's plane. This is the dual coordinate step of Crammer and Singer's multi-class SVM
// (LIBLINEAR -s 4; Keerthi, Sundararajan, Chang, Hsieh, Lin, KDD 2008), written in the BCFW
// dual of dual_state.hpp. The loop of exact_steps.hpp runs it.
//
// Valid when every example is one unit and w has no transition block, so that the planes of
// example i are the K vertices of a simplex: phi^i is a distribution mbar_i over the K classes,
//   w = (1/(lambda n)) sum_i x_i (x) (e_{y_i} - mbar_i),   phi_circ = (1/n) sum_i <mbar_i, o_i>,
// with o_i(k) = Delta(y_i, k) + c(k) - c(y_i). Changing block i alone to m changes w by
// (1/(lambda n)) x_i (x) (mbar_i - m), and n times the dual F becomes, up to a constant,
//   <m, S + o_i> - ||x_i||^2/(2 lambda n) ||m - mbar_i||^2,    S_k = <w_k, x_i> at the current w,
// a concave quadratic over the simplex whose maximizer is a Euclidean projection:
//   m* = Proj_simplex( mbar_i + (lambda n / ||x_i||^2) (S + o_i) ).
// The step moves block i to m* (so F never decreases and the block is optimal for the other
// blocks fixed): the FW step of BCFW moves only towards the best vertex, with a line search.
//
// Storage: mbar (n x K doubles, row i = mbar_i), the class order of class shrinking (n x K
// class indices of type C: 16 bits when K < 65536) and o (n x K; none for the 0-1 loss, where
// o_i(k) = [k != y_i]) dense; per block its offset cbar_i and ||x_i||^2 (doubles) and its count
// of active classes (C); w and phi_circ as in DualState. The label is read from the data.
// Sparse X: w is kept feature-major (w[j K + k] = w_k[j]) while the solver runs, and the loop
// computes the scores itself (max_oracle_scored): a sparse row's scores then read K contiguous
// weights per nonzero instead of K weights d apart each (sector: d = 55197, K = 105, 46 MB of w,
// every score a cache miss), the layout LIBLINEAR uses. Before every checkpoint w is transposed
// in place to the class-major layout the core scores (sync_w, solver time), and back after it
// (resume_passes): one array of d x K doubles, never two. Dense X with at most a quarter of its
// entries nonzero (MNIST: 19 %) is copied to CSR once and treated the same way: a visit then
// reads 12 bytes per nonzero instead of 8 per entry (MNIST: 1.8 KB instead of 6.3 KB a row, and
// a pass reads every row from memory), as LIBLINEAR, which always stores rows sparse.
//
// Class shrinking (with option shrinking, as LIBLINEAR's Crammer-Singer solver): a step keeps
// per block the classes that may still enter its optimum, an active prefix of a permutation of
// the K classes. A class k with mbar_ik = 0 whose gradient G_k = S_k + o_i(k) is below that of
// every class holding weight is dropped: it is 0 in m* (if the threshold tau of the projection
// were <= t G_k < t G_j for every j with mbar_ij > 0, those j alone would sum to more than 1), so
// dropping it before the projection changes no number of this step. Later steps on the block in
// a pass that skips blocks (shrinking.hpp) score only the active classes (an approximate call:
// the max over a subset of the block's planes) and solve the sub-problem on that face; a pass
// over all blocks restores all K classes and calls the exact oracle, so only a full pass without
// moves certifies the optimum, as before.
//
// Threads (async_exact_steps.hpp, PASSCoDe): the shared_* steps are the same step with its
// scratch (Scratch) held by the calling thread and the step's change of phi_circ summed in the
// scratch (added after the threads join). By Access, they read and change the one w the threads
// share, by relaxed atomic loads and by atomic adds or wild load-and-store pairs through
// std::atomic_ref, or the thread's own copy of w (Scratch::w) by plain loads and stores, the
// thread's loop then logging the change (Scratch::touched, dm) for the others to apply
// (add_change). A block's own rows (mbar_i, its class order and active count, cbar_i) are
// touched only by the thread that holds the block. The serial step is the same code with plain
// loads and stores (if constexpr), so one thread's numbers do not change. add_w_of_blocks
// recomputes w = w(alpha) from the blocks, after wild changes that may have been lost.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dual_state.hpp"
#include "options.hpp"
#include "prefetch.hpp"
#include "simd/clones.hpp"

namespace dualgap_bcfw {

/// out = the Euclidean projection of v (K values) onto the probability simplex
/// {m >= 0, sum m = 1}: m_k = max(v_k - tau, 0), with tau the threshold at which the kept
/// entries sum to 1. Found by Michelot's algorithm (J. Optim. Theory Appl. 50, 1986; Condat,
/// Math. Program. 158, 2016, section 3): start from the entries above max(v) - 1 (only those can
/// be positive, since tau >= max(v) - 1), set tau = (sum of the kept - 1) / their count, drop the
/// kept entries <= tau, repeat until none drops; tau only rises, so it ends within K rounds,
/// usually 2-3. No sort: a sort of the K scores was a third of a USPS step. `kept` is scratch.
inline void project_onto_simplex(const double* v, std::size_t K, double* out, std::vector<double>& kept) {
  const double top = *std::max_element(v, v + K);
  // Branch-free compaction (the comparisons are data-dependent: branches would mispredict).
  kept.resize(K);
  double* c = kept.data();
  std::size_t n = 0;
  double sum = 0;
  for (std::size_t k = 0; k < K; ++k) {
    const bool in = v[k] > top - 1;
    c[n] = v[k];
    sum += in ? v[k] : 0.0;
    n += in;
  }
  double tau = (sum - 1) / static_cast<double>(n);
  for (;;) {
    std::size_t m = 0;
    sum = 0;
    for (std::size_t r = 0; r < n; ++r) {
      const double x = c[r];
      const bool in = x > tau;
      c[m] = x;
      sum += in ? x : 0.0;
      m += in;
    }
    if (m == n) break;
    n = m;
    tau = (sum - 1) / static_cast<double>(n);
  }
  for (std::size_t k = 0; k < K; ++k) out[k] = std::max(v[k] - tau, 0.0);
}

namespace detail {
// y += a x over d entries (AVX2 + FMA clone when the CPU has them: the core's row_axpy is
// compiled for the baseline ISA).
DUALGAP_SIMD_CLONES inline void axpy_row(double* y, double a, const double* x, std::size_t d) {
  for (std::size_t j = 0; j < d; ++j) y[j] += a * x[j];
}
// <a, b> over d entries.
// <a, b> over d entries; eight partial sums, so that the loop vectorizes without reassociating
// one sum (which the compiler may not do) and the additions do not wait on each other.
DUALGAP_SIMD_CLONES inline double dot_row(const double* a, const double* b, std::size_t d) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 8 <= d; j += 8)
    for (std::size_t r = 0; r < 8; ++r) s[r] += a[j + r] * b[j + r];
  double t = 0;
  for (; j < d; ++j) t += a[j] * b[j];
  return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7])) + t;
}

// Access to w by the steps of threads (asynchronous exact steps). Where the threads share w
// (atomic, wild), every read is a relaxed atomic load and every change goes through
// std::atomic_ref, so there is no data race; relaxed: a step needs no order between entries, only
// each entry's own. On x86-64 the load is a plain move (but the compiler does not vectorize it).
// The change is, by Access:
//   atomic: one read-modify-write (PASSCoDe-Atomic), a lock cmpxchg loop on x86-64 (about 20
//           cycles uncontended, and it drains the store buffer): no update is lost, w stays the
//           sum of all applied changes;
//   wild:   a load and a store (PASSCoDe-Wild), two plain moves: another thread's change of the
//           same entry between them is lost, so w may leave w(alpha) and the loop rebuilds it
//           from alpha before anything reads it as w(alpha) (exact_steps.hpp);
//   copies: a plain add to the thread's own copy of w, which no other thread touches during a
//           pass (they apply the change to their copies from the thread's log);
//   serial: a plain add (one thread).
static_assert(std::atomic_ref<double>::is_always_lock_free);
/// Whether threads read and write one w (atomic or wild), so that every access is atomic.
constexpr bool shares_w(Access A) { return A == Access::atomic || A == Access::wild; }
[[gnu::always_inline]] inline double shared_load(const double* p) {
  return std::atomic_ref<double>(*const_cast<double*>(p)).load(std::memory_order_relaxed);
}
template <Access A>
[[gnu::always_inline]] inline void add(double* p, double v) {
  if constexpr (!shares_w(A)) {  // serial, copies: the thread's own w
    *p += v;
  } else {
    std::atomic_ref<double> e(*p);
    if constexpr (A == Access::atomic) e.fetch_add(v, std::memory_order_relaxed);
    else e.store(e.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
  }
}
// A load of w: atomic where threads share it, plain otherwise (the serial step's own code).
template <Access A>
[[gnu::always_inline]] inline double load(const double* p) {
  if constexpr (shares_w(A)) return shared_load(p);
  else return *p;
}
// <a, b> over d entries, a read from the shared w; four partial sums (the additions do not wait
// on each other).
inline double shared_dot(const double* a, const double* b, std::size_t d) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t j = 0;
  for (; j + 4 <= d; j += 4) {
    s0 += shared_load(a + j) * b[j];
    s1 += shared_load(a + j + 1) * b[j + 1];
    s2 += shared_load(a + j + 2) * b[j + 2];
    s3 += shared_load(a + j + 3) * b[j + 3];
  }
  for (; j < d; ++j) s0 += shared_load(a + j) * b[j];
  return (s0 + s1) + (s2 + s3);
}
}  // namespace detail

/// In-place change of layout of the weights w, d features x K classes, between feature-major
/// (w[j K + k] = w_k[j], what the passes read) and class-major (w[k d + j], what the core scores),
/// with scratch of a few hundred KB instead of a second d x K array (sector: 46 MB). Moves values
/// only: no number changes. In three sequential sweeps, not by following the cycles of the
/// element permutation (one cache miss per entry, several times slower): the features are cut
/// into tiles of b; each tile (b x K) is transposed through the scratch into K chunks of b; the
/// chunks, a (d / b) x K matrix of b contiguous values each, are transposed by following cycles
/// of chunks; the rows are then spread apart to make room for the last d mod b features, which
/// went through the scratch.
class WeightLayout {
 public:
  /// feature-major -> class-major
  void to_class_major(double* w, std::size_t d, std::size_t K) {
    if (d <= 1 || K <= 1) return;  // the two layouts are the same
    const std::size_t b = tile(K), q = d / b, r = d % b;
    tile_.resize(b * K);
    for (std::size_t t = 0; t < q; ++t) {  // each tile b x K -> K x b
      double* A = w + t * b * K;
      std::copy(A, A + b * K, tile_.data());
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t j = 0; j < b; ++j) A[k * b + j] = tile_[j * K + k];
    }
    transpose_chunks(w, q, K, b);  // chunk (t, k) -> (k, t): class k's first q b weights in a row
    const double* rest = w + q * b * K;  // the last r features, r x K
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t j = 0; j < r; ++j) tile_[k * r + j] = rest[j * K + k];
    for (std::size_t k = K; k-- > 0;) {  // rows from the last: no row overwrites one not yet moved
      std::memmove(w + k * d, w + k * q * b, q * b * sizeof(double));
      std::copy(tile_.data() + k * r, tile_.data() + (k + 1) * r, w + k * d + q * b);
    }
    release();
  }
  /// class-major -> feature-major (the inverse, step by step)
  void to_feature_major(double* w, std::size_t d, std::size_t K) {
    if (d <= 1 || K <= 1) return;
    const std::size_t b = tile(K), q = d / b, r = d % b;
    tile_.resize(b * K);
    for (std::size_t k = 0; k < K; ++k) std::copy(w + k * d + q * b, w + (k + 1) * d, tile_.data() + k * r);
    for (std::size_t k = 0; k < K; ++k) std::memmove(w + k * q * b, w + k * d, q * b * sizeof(double));
    double* rest = w + q * b * K;
    for (std::size_t j = 0; j < r; ++j)
      for (std::size_t k = 0; k < K; ++k) rest[j * K + k] = tile_[k * r + j];
    transpose_chunks(w, K, q, b);
    for (std::size_t t = 0; t < q; ++t) {  // each tile K x b -> b x K
      double* A = w + t * b * K;
      std::copy(A, A + b * K, tile_.data());
      for (std::size_t j = 0; j < b; ++j)
        for (std::size_t k = 0; k < K; ++k) A[j * K + k] = tile_[k * b + j];
    }
    release();
  }

 private:
  /// Features per tile: a tile's b x K values within 512 KB of scratch, at most 256.
  static std::size_t tile(std::size_t K) { return std::clamp<std::size_t>((std::size_t{1} << 16) / K, 1, 256); }
  /// The rows x cols matrix of chunks of b values at w, transposed by following the cycles of
  /// p -> p rows mod (rows cols - 1) (the chunk at p = r cols + c goes to c rows + r).
  void transpose_chunks(double* w, std::size_t rows, std::size_t cols, std::size_t b) {
    if (rows <= 1 || cols <= 1) return;
    const std::size_t m = rows * cols - 1;
    seen_.assign(m + 1, false);
    chunk_.resize(2 * b);
    double* held = chunk_.data();
    double* next = held + b;
    for (std::size_t start = 1; start < m; ++start) {
      if (seen_[start]) continue;
      std::size_t p = start;
      std::copy(w + p * b, w + (p + 1) * b, held);
      do {
        const auto q = static_cast<std::size_t>(static_cast<unsigned __int128>(p) * rows % m);
        std::copy(w + q * b, w + (q + 1) * b, next);
        std::copy(held, held + b, w + q * b);
        std::swap(held, next);
        seen_[q] = true;
        p = q;
      } while (p != start);
    }
  }
  void release() {
    tile_ = std::vector<double>();
    chunk_ = std::vector<double>();
    seen_ = std::vector<bool>();
  }
  std::vector<double> tile_, chunk_;
  std::vector<bool> seen_;
};

/// Whether exact block steps apply: one unit per example and no transition features.
inline bool simplex_blocks_apply(const Examples& ex, const StructuredOracle& oracle) {
  if (oracle.uses_transitions()) return false;
  for (std::size_t i = 0; i < ex.num_examples(); ++i)
    if (ex.units_of(i) != 1) return false;
  return true;
}

/// C: the type of a class index in the class order (std::uint16_t when K < 65536, else int).
template <class C>
class SimplexBlocks : public DualState {
 public:
  /// Changes of a block entry at most this large count as no change: they are rounding of the
  /// projection, and treating them as moves would keep converged blocks from shrinking.
  static constexpr double kNoMove = 1e-12;
  /// Dense X with at most this share of nonzero entries is copied to CSR (see the top).
  static constexpr double kSparseBelow = 0.25;

  /// What one step works in and leaves for its loop: the scores, gradients and the projection's
  /// input and output by active position, the change by class. The serial loop's steps use the
  /// storage's own; each thread of an asynchronous pass holds one (scratch()).
  struct Scratch {
    std::vector<double> S, G, v, m, dm, kept;
    std::vector<int> touched;  ///< classes whose entry the last step changed
    double violation = 0;      ///< max_k G_k - min over the classes holding weight, before the last step
    double gap = 0;            ///< n times the block gap of the last step's oracle label, before it
    double circ = 0;           ///< shared steps: the sum of their changes of phi_circ (added after the join)
    double* w = nullptr;       ///< Access::copies: the thread's own copy of w, which its steps read and change
  };

  /// Throws unless simplex_blocks_apply(ex, oracle). class_shrinking: drop classes that cannot
  /// enter a block's optimum (see the top of this file).
  SimplexBlocks(const Examples& ex, const StructuredOracle& oracle, double lambda, bool class_shrinking)
      : DualState(ex, oracle, lambda),
        inv_lambda_n_(1.0 / (lambda_ * static_cast<double>(n_))),
        class_shrinking_(class_shrinking) {
    if (!simplex_blocks_apply(ex, oracle))
      throw std::runtime_error(
          "bcfw: block_step: exact needs one unit per example and no transition features "
          "(multi-class data); use block_step: fw");
    if (ex.X.is_sparse()) {
      rows_ = &ex.X.sparse();
    } else if (ex.X.dense().size() > 0 &&
               static_cast<double>((ex.X.dense().array() != 0.0).count()) <= kSparseBelow * static_cast<double>(ex.X.dense().size())) {
      own_rows_ = ex.X.dense().sparseView();
      own_rows_.makeCompressed();
      rows_ = &own_rows_;
    }
    if (static_cast<std::uint64_t>(K_) > std::numeric_limits<C>::max())
      throw std::logic_error("bcfw: the class index type of the exact steps cannot hold K");
    feature_major_ = rows_ != nullptr;
    fm_layout_ = feature_major_;  // w = 0 in either layout
    const auto K = static_cast<std::size_t>(K_);
    mbar_.assign(n_ * K, 0.0);
    sq_norm_.assign(n_, 0.0);
    cls_.resize(n_ * K);
    active_.assign(n_, static_cast<C>(K_));
    own_ = scratch();
    std::vector<int> y(1);
    auto offset = [&](std::size_t i, int k) {
      y[0] = k;
      return oracle.loss(ex, i, y.data()) + oracle.constant(ex, i, y.data()) - truth_constant(i);
    };
    // The 0-1 loss without a constant term (the multiclass oracle): o_i(k) = [k != y_i] needs no
    // table, and a visit reads one random row less. Decided before the table is allocated: n x K
    // doubles held for nothing would add to the run's peak.
    zero_one_ = true;
    for (std::size_t i = 0; i < n_ && zero_one_; ++i)
      for (int k = 0; k < K_ && zero_one_; ++k) zero_one_ = offset(i, k) == (k != label(i) ? 1.0 : 0.0);
    if (!zero_one_) off_.assign(n_ * K, 0.0);
    for (std::size_t i = 0; i < n_; ++i) {
      const int yi = label(i);
      for (int k = 0; k < K_; ++k) {
        if (!zero_one_) off_[i * K + static_cast<std::size_t>(k)] = offset(i, k);
        cls_[i * K + static_cast<std::size_t>(k)] = static_cast<C>(k);
      }
      // Algorithm 2, line 1: phi^i = phi^{i y_i}, the vertex e_{y_i} (DualState set cbar_i = o_i(y_i)).
      mbar_[i * K + static_cast<std::size_t>(yi)] = 1.0;
      sq_norm_[i] = ex.X.row_sq_norm(ex.unit_begin(i));
    }
  }

  /// Exact step on block i after the exact oracle call: S is the unary score table of the current
  /// w (K values), yhat the oracle's label with its offset (they give the block gap that gap
  /// sampling reads). Restores all K classes of the block first. Moves mbar_i to the block optimum
  /// m*, updates w, phi_circ and the block offset; returns whether the block moved (some entry by
  /// more than kNoMove; if not, nothing changed).
  bool step(std::size_t i, const int* yhat, double offset, const double* S) {
    return step_on<Access::serial>(own_, i, yhat, offset, S);
  }
  /// Whether block i has dropped classes (then step_active is its cheaper step).
  bool classes_dropped(std::size_t i) const { return active_[i] < K_; }
  /// Step on block i over its active classes only: scores them at the current w (the caller
  /// counts an approximate oracle call: the max over a subset of the block's planes) and solves
  /// the sub-problem on their face of the simplex. The block gap recorded is the one
  /// over those classes. Returns as step().
  bool step_active(std::size_t i) {
    active_scores<Access::serial>(own_, i);
    return solve_block<Access::serial>(own_, i, std::numeric_limits<double>::quiet_NaN(), -1);
  }
  /// max_k G_k - min_{k: mbar_ik > 0} G_k of the last step's block before the step (over its
  /// active classes): 0 iff the block was optimal; what shrinking's eps_shrink bounds.
  double last_violation() const { return own_.violation; }

  // ---- the same steps where threads share w (async_exact_steps.hpp) ----
  /// A scratch for one thread's steps.
  Scratch scratch() const {
    const auto K = static_cast<std::size_t>(K_);
    Scratch s;
    s.S.assign(K, 0.0), s.G.assign(K, 0.0), s.v.assign(K, 0.0), s.m.assign(K, 0.0), s.dm.assign(K, 0.0);
    s.touched.reserve(K);
    return s;
  }
  /// S[k] = <w_k, x_i> for all K classes from the w of a thread's steps with scratch s (A: the
  /// shared w, or s.w), in the layout of the passes (feature-major for sparse rows, class-major
  /// for dense ones).
  template <Access A>
  void shared_scores(const Scratch& s, std::size_t i, std::vector<double>& S) const {
    const auto K = static_cast<std::size_t>(K_);
    S.assign(K, 0.0);
    const auto r = ex_.unit_begin(i);
    const double* W = w_of<A>(s);
    if (feature_major_) {
      const auto& X = *rows_;
      for (auto e = X.outerIndexPtr()[r]; e < X.outerIndexPtr()[r + 1]; ++e) {
        const double* wj = W + static_cast<std::size_t>(X.innerIndexPtr()[e]) * K;
        const double x = X.valuePtr()[e];
        if constexpr (detail::shares_w(A))
          for (std::size_t k = 0; k < K; ++k) S[k] += x * detail::shared_load(wj + k);
        else
          detail::axpy_row(S.data(), x, wj, K);
      }
      return;
    }
    const double* x = ex_.X.dense().data() + static_cast<std::size_t>(r) * d_;
    for (std::size_t k = 0; k < K; ++k)
      if constexpr (detail::shares_w(A)) S[k] = detail::shared_dot(W + k * d_, x, d_);
      else S[k] = detail::dot_row(W + k * d_, x, d_);
  }
  /// step() by a thread that holds block i, with its own scratch, on the w of A (the shared w, or
  /// s.w). The change of phi_circ is added to s.circ, not to phi_circ; the change of mbar_i is
  /// left in s.touched and s.dm (for add_change).
  template <Access A>
  bool shared_step(Scratch& s, std::size_t i, const int* yhat, double offset, const double* S) {
    return step_on<A>(s, i, yhat, offset, S);
  }
  /// step_active() by a thread that holds block i (as shared_step).
  template <Access A>
  bool shared_step_active(Scratch& s, std::size_t i) {
    active_scores<A>(s, i);
    return solve_block<A>(s, i, std::numeric_limits<double>::quiet_NaN(), -1);
  }
  /// W += the change of w that block i's move by dm_k in class k makes (dm_k = mbar_ik before the
  /// step - after it): (1/(lambda n)) dm_k x_i in class k, in the layout of the passes. A: how W is
  /// changed (serial: the one thread's w; atomic, wild: the shared w; copies: a thread's own
  /// copy, which it applies the other threads' logged changes to).
  template <Access A>
  void add_change(double* W, std::size_t i, int k, double dm) const {
    const double coef = inv_lambda_n_ * dm;
    if (feature_major_) {
      add_row<A>(W + k, ex_.unit_begin(i), coef, static_cast<std::size_t>(K_));
    } else {
      const double* x = ex_.X.dense().data() + static_cast<std::size_t>(ex_.unit_begin(i)) * d_;
      double* wk = W + static_cast<std::size_t>(k) * d_;
      for (std::size_t j = 0; j < d_; ++j)
        if (x[j] != 0.0) detail::add<A>(wk + j, coef * x[j]);
    }
  }
  /// target += (1/(lambda n)) sum_{i in [begin, end)} x_i (x) (e_{y_i} - mbar_i), a d x K array in
  /// the current layout of w: summed over all blocks into zeros, w(alpha). After wild steps
  /// (Access::wild) w may have lost changes, and the dual a checkpoint certifies,
  /// -lambda/2 ||w||^2 + phi_circ, is the dual of alpha only at w(alpha); the threads rebuild it
  /// with this, each over its share of the blocks (AsyncExactSteps::rebuild_w). One read of the
  /// rows, O(nonzeros x classes holding weight). Reads the blocks only.
  void add_w_of_blocks(std::size_t begin, std::size_t end, double* target) const {
    const auto K = static_cast<std::size_t>(K_);
    // sparse rows: feature-major w[j K + k] during the passes, class-major w[k d + j] between
    // sync_w and resume_passes
    const std::size_t step_j = fm_layout_ ? K : 1, step_k = fm_layout_ ? 1 : d_;
    for (std::size_t i = begin; i < end; ++i) {
      const double* mb = mbar_.data() + i * K;
      const auto yi = static_cast<std::size_t>(label(i));
      const auto r = ex_.unit_begin(i);
      for (std::size_t k = 0; k < K; ++k) {
        const double coef = inv_lambda_n_ * ((k == yi ? 1.0 : 0.0) - mb[k]);
        if (coef == 0.0) continue;
        if (rows_) {
          add_row<Access::serial>(target + k * step_k, r, coef, step_j);
        } else {
          detail::axpy_row(target + k * d_, coef, ex_.X.dense().data() + static_cast<std::size_t>(r) * d_, d_);
        }
      }
    }
  }
  /// Share of the classes still active, over all blocks (for the record).
  double active_class_share() const {
    double s = 0;
    for (int a : active_) s += a;
    return n_ == 0 ? 1.0 : s / (static_cast<double>(n_) * K_);
  }

  /// Whether w is kept feature-major (sparse rows) during the passes: then the loop takes the
  /// scores from scores(), and w is class-major only between sync_w() and resume_passes().
  bool feature_major() const { return feature_major_; }
  /// S[k] = <w_k, x_i> from the feature-major weights (feature_major() only, during the passes).
  void scores(std::size_t i, std::vector<double>& S) const { shared_scores<Access::serial>(own_, i, S); }
  /// Makes w class-major (w_k[j] at k d + j), as the core scores it: transposes the feature-major
  /// weights in place (no-op for dense X, or when w is class-major already).
  void sync_w() {
    if (!fm_layout_) return;
    layout_.to_class_major(w.data(), d_, static_cast<std::size_t>(K_));
    fm_layout_ = false;
  }
  /// After a checkpoint: w back to the feature-major layout of the passes (no-op for dense X).
  void resume_passes() {
    if (!feature_major_ || fm_layout_) return;
    layout_.to_feature_major(w.data(), d_, static_cast<std::size_t>(K_));
    fm_layout_ = true;
  }

  /// target += coef * (w after the last step - w before it) = coef/(lambda n) x_i (x) Dm over the
  /// touched classes. No-op if the last step did not move.
  void add_last_change(double* target, double coef) const {
    const double s = coef * last_scale_;
    if (s == 0.0) return;
    const auto row = ex_.unit_begin(last_block_);
    if (ex_.X.is_sparse()) {
      for (int k : own_.touched) ex_.X.row_axpy(row, s * own_.dm[static_cast<std::size_t>(k)], target + static_cast<std::size_t>(k) * d_);
      return;
    }
    const double* x = ex_.X.dense().data() + static_cast<std::size_t>(row) * d_;
    for (int k : own_.touched) detail::axpy_row(target + static_cast<std::size_t>(k) * d_, s * own_.dm[static_cast<std::size_t>(k)], x, d_);
  }

  /// Asks for block i's feature row and its rows of mbar, o and the class order (the loop calls
  /// it for the next block: in random order each is a cache miss once n K doubles exceed the
  /// cache). A hint; changes no number.
  void prefetch(std::size_t i) const {
    const std::size_t bytes = static_cast<std::size_t>(K_) * sizeof(double);
    const char* m = reinterpret_cast<const char*>(mbar_.data() + i * static_cast<std::size_t>(K_));
    if (rows_) prefetch_rows(*rows_, ex_.unit_begin(i), ex_.unit_end(i));
    else prefetch_example(ex_, i);
    const char* c = reinterpret_cast<const char*>(cls_.data() + i * static_cast<std::size_t>(K_));
    for (std::size_t b = 0; b < bytes + 63; b += 64) __builtin_prefetch(m + b);
    if (!zero_one_) {
      const char* o = reinterpret_cast<const char*>(off_.data() + i * static_cast<std::size_t>(K_));
      for (std::size_t b = 0; b < bytes + 63; b += 64) __builtin_prefetch(o + b);
    }
    if (class_shrinking_)
      for (std::size_t b = 0; b < static_cast<std::size_t>(K_) * sizeof(C) + 63; b += 64) __builtin_prefetch(c + b);
  }

  /// mbar_i (K values), for tests.
  const double* marginals(std::size_t i) const { return mbar_.data() + i * static_cast<std::size_t>(K_); }

 private:
  const dualgap::SparseMatrix* rows_ = nullptr;  ///< X as CSR: the data's own, or own_rows_
  dualgap::SparseMatrix own_rows_;  ///< CSR copy of a dense X with few nonzeros
  bool feature_major_ = false;   ///< rows_ set: w is feature-major during the passes
  bool fm_layout_ = false;       ///< w is feature-major now (w[j K + k] = w_k[j])
  WeightLayout layout_;          ///< sync_w / resume_passes
  std::vector<double> mbar_;     ///< n x K: row i = mbar_i, a point of the simplex
  std::vector<double> off_;      ///< n x K: o_i(k) = Delta(y_i, k) + c(k) - c(y_i); empty if zero_one_
  bool zero_one_ = false;        ///< o_i(k) = [k != y_i] for every block (no table kept)
  std::vector<double> sq_norm_;  ///< ||x_i||^2
  const double inv_lambda_n_;    ///< 1/(lambda n): w's change per unit of a block's move (x_i dm / (lambda n))
  bool class_shrinking_;
  std::vector<C> cls_;           ///< n x K: row i = a permutation of the classes, active ones first
  std::vector<C> active_;        ///< number of active classes of block i
  Scratch own_;                  ///< the scratch of the serial loop's steps

  /// y_i (one unit per example).
  int label(std::size_t i) const { return ex_.y[static_cast<std::size_t>(ex_.unit_begin(i))]; }
  /// wk[j stride] += coef x_rj over the nonzeros j of CSR row r (rows_ set): one class's share of
  /// a block's change of w, stride K in the feature-major layout, 1 in the class-major one.
  template <Access A>
  void add_row(double* wk, std::int64_t r, double coef, std::size_t stride) const {
    const auto& X = *rows_;
    const int* idx = X.innerIndexPtr();
    const double* val = X.valuePtr();
    for (auto e = X.outerIndexPtr()[r]; e < X.outerIndexPtr()[r + 1]; ++e)
      detail::add<A>(wk + static_cast<std::size_t>(idx[e]) * stride, coef * val[e]);
  }
  /// The w the steps of A with scratch s read and change: the thread's copy (copies) or the
  /// storage's (serial, or shared by the threads).
  template <Access A>
  double* w_of(const Scratch& s) const {
    if constexpr (A == Access::copies) return s.w;
    else return const_cast<double*>(w.data());
  }

  /// step() on block i with scratch s: restores all K classes of the block, takes the scores by
  /// active position, solves. A: how the step reaches w (see the top).
  template <Access A>
  bool step_on(Scratch& s, std::size_t i, const int* yhat, double offset, const double* S) {
    const auto K = static_cast<std::size_t>(K_);
    active_[i] = static_cast<C>(K_);
    const C* c = cls_.data() + i * K;
    for (std::size_t a = 0; a < K; ++a) s.S[a] = S[c[a]];
    return solve_block<A>(s, i, S[yhat[0]] + offset, yhat[0]);
  }

  /// s.S[a] = <w_k, x_i> for the active classes k = cls_i[a] of block i (step_active's scores).
  template <Access A>
  void active_scores(Scratch& s, std::size_t i) {
    std::vector<double>& S_ = s.S;
    const auto K = static_cast<std::size_t>(K_);
    const C* c = cls_.data() + i * K;
    const auto na = static_cast<std::size_t>(active_[i]);
    const auto r = ex_.unit_begin(i);
    const double* W = w_of<A>(s);
    if (feature_major_) {
      const auto& X = *rows_;
      const auto b = X.outerIndexPtr()[r], end = X.outerIndexPtr()[r + 1];
      const int* idx = X.innerIndexPtr();
      const double* val = X.valuePtr();
      if (na <= 4) {
        // Few classes (the usual case): one class at a time, two sums in registers; adding into
        // S_[a] per nonzero would chain every addition on the previous one through memory.
        for (std::size_t a = 0; a < na; ++a) {
          const double* wk = W + c[a];
          double s0 = 0, s1 = 0;
          auto e = b;
          for (; e + 1 < end; e += 2) {
            s0 += val[e] * detail::load<A>(wk + static_cast<std::size_t>(idx[e]) * K);
            s1 += val[e + 1] * detail::load<A>(wk + static_cast<std::size_t>(idx[e + 1]) * K);
          }
          if (e < end) s0 += val[e] * detail::load<A>(wk + static_cast<std::size_t>(idx[e]) * K);
          S_[a] = s0 + s1;
        }
        return;
      }
      // LIBLINEAR's order: each nonzero reads the active classes' weights of its feature.
      std::fill(S_.begin(), S_.begin() + static_cast<std::ptrdiff_t>(na), 0.0);
      for (auto e = b; e < end; ++e) {
        const double* wj = W + static_cast<std::size_t>(idx[e]) * K;
        const double x = val[e];
        for (std::size_t a = 0; a < na; ++a) S_[a] += x * detail::load<A>(wj + c[a]);
      }
    } else {
      const double* x = ex_.X.dense().data() + static_cast<std::size_t>(r) * d_;
      for (std::size_t a = 0; a < na; ++a) {
        const double* wk = W + static_cast<std::size_t>(c[a]) * d_;
        if constexpr (detail::shares_w(A)) S_[a] = detail::shared_dot(wk, x, d_);
        else S_[a] = detail::dot_row(wk, x, d_);
      }
    }
  }

  /// The step on block i over its active classes, whose scores are in s.S (by position).
  /// target: the oracle's value S_yhat + o_i(yhat) and yhat, or NaN and -1 after step_active
  /// (then the best active class stands in for the oracle's label). Returns whether it moved.
  /// A shared: w is shared by threads (atomic or wild changes), and the change of phi_circ goes
  /// to s.circ.
  template <Access A>
  bool solve_block(Scratch& s, std::size_t i, double target, int yhat) {
    const auto K = static_cast<std::size_t>(K_);
    std::vector<double>&S_ = s.S, &G_ = s.G, &v_ = s.v, &m_ = s.m, &dm_ = s.dm;
    std::vector<int>& touched_ = s.touched;
    double* mb = mbar_.data() + i * K;
    // o_i(k): from the table, or [k != y_i] for the 0-1 loss
    const double* o = zero_one_ ? nullptr : off_.data() + i * K;
    const int yi = label(i);
    auto off = [o, yi](int k) { return o ? o[k] : (k != yi ? 1.0 : 0.0); };
    C* c = cls_.data() + i * K;
    std::size_t na = static_cast<std::size_t>(active_[i]);
    // G = S + o_i, the gradient of n F in block i; value = <mbar_i, S> + cbar_i, the value of
    // the current block's plane (mbar_i is 0 outside the active classes).
    double value = 0, best = -std::numeric_limits<double>::infinity();
    std::size_t best_a = 0;
    for (std::size_t a = 0; a < na; ++a) {
      G_[a] = S_[a] + off(c[a]);
      value += mb[c[a]] * S_[a];
      if (G_[a] > best) best = G_[a], best_a = a;
    }
    if (yhat < 0) target = best, yhat = c[best_a];
    s.gap = target - value - cbar_[i];
    if constexpr (A == Access::serial) {
      last_gap_ = s.gap;
      last_block_ = i;
      last_scale_ = 0;
    }

    double min_held = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < na; ++a)
      if (mb[c[a]] > 0) min_held = std::min(min_held, G_[a]);
    // The block is optimal iff no class beats a class holding weight (KKT of the sub-problem).
    s.violation = best - min_held;
    if (class_shrinking_) {
      for (std::size_t a = 0; a < na;) {
        if (mb[c[a]] == 0 && G_[a] < min_held) {
          --na;  // swap the dropped class behind the active ones
          std::swap(c[a], c[na]), std::swap(S_[a], S_[na]), std::swap(G_[a], G_[na]);
        } else {
          ++a;
        }
      }
      active_[i] = static_cast<C>(na);
    }

    const double q = sq_norm_[i];
    if (q > 0) {
      const double t = lambda_ * static_cast<double>(n_) / q;
      for (std::size_t a = 0; a < na; ++a) v_[a] = mb[c[a]] + t * G_[a];
      project_onto_simplex(v_.data(), na, m_.data(), s.kept);
    } else {
      // x_i = 0: w does not depend on block i; the best vertex of o_i (the oracle's label, which
      // no class shrinking drops: it has the largest G).
      for (std::size_t a = 0; a < na; ++a) m_[a] = c[a] == yhat ? 1.0 : 0.0;
    }
    touched_.clear();
    double move = 0, circ = 0;
    for (std::size_t a = 0; a < na; ++a) {
      dm_[static_cast<std::size_t>(c[a])] = mb[c[a]] - m_[a];
      move = std::max(move, std::abs(mb[c[a]] - m_[a]));
      circ += m_[a] * off(c[a]);
    }
    if (move <= kNoMove) return false;
    for (std::size_t a = 0; a < na; ++a) {
      const auto k = static_cast<std::size_t>(c[a]);
      if (dm_[k] != 0.0) touched_.push_back(c[a]), mb[k] = m_[a];
    }
    if constexpr (A != Access::serial) {
      // as move_offsets with gamma = 1, phi_circ's share kept by the thread
      const double doff = circ - cbar_[i];
      s.circ += doff / static_cast<double>(n_);
      cbar_[i] += doff;
      for (int k : touched_) add_change<A>(w_of<A>(s), i, k, dm_[static_cast<std::size_t>(k)]);
      return true;
    }
    move_offsets(i, 1.0, circ - cbar_[i]);  // cbar_i = <m*, o_i>; sets last_scale_ = 1/(lambda n)
    if (feature_major_) {
      // class by class (usually two), so the inner loop is a plain scatter over the row
      for (int k : touched_) add_change<Access::serial>(w.data(), i, k, dm_[static_cast<std::size_t>(k)]);
    } else {
      add_last_change(w.data(), 1.0);
    }
    return true;
  }
};

}  // namespace dualgap_bcfw
