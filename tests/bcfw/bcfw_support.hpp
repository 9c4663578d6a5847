// Helpers of the bcfw tests: generated data, a tiny recorder, a brute-force chain oracle and an
// independent solver of the SSVM dual (FISTA on the product of simplices over all labelings).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "test_support.hpp"

namespace bcfw_test {

using namespace dualgap;

/// Multi-class data: K Gaussian blobs in d dimensions (overlapping), labels 0..K-1.
/// The built-in multi-class oracle (plugins/oracle/multiclass).
inline std::shared_ptr<StructuredOracle> multiclass() {
  return dualgap::test::make<StructuredOracle>(Kind::oracle, "multiclass");
}

inline Examples blobs(std::size_t n, int d, int K, std::uint64_t seed, double spread = 1.0,
                      bool sparse = false) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  DenseMatrix centers(K, d);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < d; ++j) centers(k, j) = g(rng);
  DenseMatrix X(static_cast<Eigen::Index>(n), d);
  Examples ex;
  ex.num_classes = K;
  for (std::size_t i = 0; i < n; ++i) {
    const int y = static_cast<int>(i % static_cast<std::size_t>(K));
    ex.y.push_back(y);
    for (int j = 0; j < d; ++j) X(static_cast<Eigen::Index>(i), j) = centers(y, j) + spread * g(rng);
  }
  if (sparse) {
    // Zero out some entries so the CSR path is exercised with real sparsity.
    for (Eigen::Index i = 0; i < X.rows(); ++i)
      for (Eigen::Index j = 0; j < X.cols(); ++j)
        if ((i + j) % 3 == 0) X(i, j) = 0;
    ex.X = FeatureMatrix(SparseMatrix(X.sparseView()));
  } else {
    ex.X = FeatureMatrix(std::move(X));
  }
  return ex;
}

/// Sequence data: n sequences of lengths in [min_len, max_len], units with a class-dependent
/// mean, labels following a sticky Markov chain.
inline Examples sequences(std::size_t n, int min_len, int max_len, int d, int K, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_int_distribution<int> len(min_len, max_len), lab(0, K - 1);
  std::uniform_real_distribution<double> unif(0, 1);
  DenseMatrix centers(K, d);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < d; ++j) centers(k, j) = g(rng);
  Examples ex;
  ex.num_classes = K;
  ex.unit_offset.push_back(0);
  std::vector<std::vector<double>> rows;
  for (std::size_t i = 0; i < n; ++i) {
    const int L = len(rng);
    int y = lab(rng);
    for (int l = 0; l < L; ++l) {
      if (l > 0 && unif(rng) < 0.4) y = lab(rng);
      ex.y.push_back(y);
      std::vector<double> r(static_cast<std::size_t>(d));
      for (int j = 0; j < d; ++j) r[static_cast<std::size_t>(j)] = centers(y, j) + 1.5 * g(rng);
      rows.push_back(std::move(r));
    }
    ex.unit_offset.push_back(static_cast<std::int64_t>(ex.y.size()));
  }
  ex.X = dualgap::test::dense_rows(rows, d);
  return ex;
}

/// Calls f(labels) for every labeling of U units with K classes.
inline void for_each_labeling(int U, int K, const std::function<void(const std::vector<int>&)>& f) {
  std::vector<int> y(static_cast<std::size_t>(U), 0);
  while (true) {
    f(y);
    int u = 0;
    while (u < U && ++y[static_cast<std::size_t>(u)] == K) y[static_cast<std::size_t>(u++)] = 0;
    if (u == U) return;
  }
}

/// A chain oracle (transitions, normalized Hamming loss, a small label-dependent constant)
/// solved by brute-force enumeration: independent of any plugin code.
class BruteChainOracle final : public StructuredOracle {
 public:
  bool uses_transitions() const override { return true; }
  double loss(const Examples& ex, std::size_t i, const int* y) const override {
    const int U = ex.units_of(i);
    int wrong = 0;
    for (int u = 0; u < U; ++u) wrong += y[u] != ex.y[static_cast<std::size_t>(ex.unit_begin(i) + u)];
    return static_cast<double>(wrong) / U;
  }
  double constant(const Examples& ex, std::size_t i, const int* y) const override {
    // A w-independent score (like a Potts term): 0.05 per unit labelled 0.
    double c = 0;
    for (int u = 0; u < ex.units_of(i); ++u) c += (y[u] == 0) ? 0.05 : 0.0;
    return c;
  }

 protected:
  void argmax(const Examples& ex, std::size_t i, const double* unary, const double* T,
              bool loss_augmented, Labeling& out) override {
    const int K = ex.num_classes, U = ex.units_of(i);
    double best = -1e300;
    for_each_labeling(U, K, [&](const std::vector<int>& y) {
      double s = constant(ex, i, y.data()) + (loss_augmented ? loss(ex, i, y.data()) : 0.0);
      for (int u = 0; u < U; ++u) s += unary[u * K + y[static_cast<std::size_t>(u)]];
      for (int u = 0; u + 1 < U; ++u) s += T[y[static_cast<std::size_t>(u)] * K + y[static_cast<std::size_t>(u + 1)]];
      if (s > best) best = s, out.labels = y;
    });
  }
};

/// Recorder for tests: a row every `every` passes, stops at max_passes or when the gap is
/// below `gap`. Scores every checkpoint with the core's objective (bind() first), which counts
/// oracle calls during evaluation as evaluation.
class TestRecorder final : public Recorder {
 public:
  struct Row {
    double passes;
    Scores m;
    OracleCounters counters;
  };
  TestRecorder(double max_passes, double gap, OracleCounters* c, double every = 1)
      : max_passes_(max_passes), gap_(gap), every_(every), c_(c), start_(Clock::now()) {}

  bool due(double passes) const override { return passes >= next_ || passes >= max_passes_; }
  void bind(const Problem& pb, const Solver& solver) { objective_ = make_objective(pb, solver); }
  Action checkpoint(double passes, const std::function<void(Iterate&)>& fill) override {
    const auto t0 = Clock::now();
    Row r{passes, {}, {}};
    REQUIRE_MESSAGE(objective_, "TestRecorder: bind(problem, solver) first");
    score_checkpoint(*objective_, c_, fill, r.m);
    if (c_) r.counters = *c_;
    rows.push_back(r);
    paused_s_ += std::chrono::duration<double>(Clock::now() - t0).count();
    next_ = passes + every_;
    if (r.m.primal && r.m.dual && *r.m.primal - *r.m.dual <= gap_) return Action::stop;
    return passes >= max_passes_ ? Action::stop : Action::proceed;
  }
  bool out_of_budget(double passes) const override { return passes >= max_passes_; }
  double solver_time_s() const override {
    return std::chrono::duration<double>(Clock::now() - start_).count() - paused_s_;
  }

  std::vector<Row> rows;
  double extra(const Row& r, const std::string& name) const {
    return r.m.column(name).value_or(std::nan(""));
  }

 private:
  using Clock = std::chrono::steady_clock;
  double max_passes_, gap_, every_;
  OracleCounters* c_;
  std::unique_ptr<Objective> objective_;
  Clock::time_point start_;
  double paused_s_ = 0;
  double next_ = 0;
};

struct QpSolution {
  Vector w;
  double dual = 0;    ///< dual value reached
  double primal = 0;  ///< primal at w, by enumeration
};

/// Independent solution of the SSVM dual by enumerating all labelings of every example:
///   max_alpha  -lambda/2 ||w(alpha)||^2 + (1/n) sum_i sum_y alpha_iy (Delta + c(y) - c(y_i)),
///   w(alpha) = -(1/(lambda n)) sum_i sum_y alpha_iy (phi(x_i,y) - phi(x_i,y_i)),
/// alpha_i on the simplex, by FISTA with Euclidean projection onto each simplex and step 1/L,
/// L the largest eigenvalue of the Hessian. The primal is evaluated by enumeration too.
inline QpSolution solve_dual_qp(const Examples& ex, StructuredOracle& oracle, double lambda,
                                int iterations) {
  const std::size_t n = ex.num_examples();
  const int K = ex.num_classes;
  const Eigen::Index dim = static_cast<Eigen::Index>(oracle.dim(static_cast<std::size_t>(ex.num_features()), K));
  std::vector<Vector> cols;        // (phi(x_i,y) - phi(x_i,y_i)) / n
  std::vector<double> off;         // (Delta + c(y) - c(y_i)) / n
  std::vector<std::size_t> block;  // first column of each example, + end
  for (std::size_t i = 0; i < n; ++i) {
    block.push_back(cols.size());
    const int* yi = ex.y.data() + ex.unit_begin(i);
    const double ci = oracle.constant(ex, i, yi);
    for_each_labeling(ex.units_of(i), K, [&](const std::vector<int>& y) {
      Vector v = Vector::Zero(dim);
      oracle.add_joint_features(ex, i, y.data(), 1.0 / n, v);
      oracle.add_joint_features(ex, i, yi, -1.0 / n, v);
      cols.push_back(v);
      off.push_back((oracle.loss(ex, i, y.data()) + oracle.constant(ex, i, y.data()) - ci) / n);
    });
  }
  block.push_back(cols.size());
  const Eigen::Index m = static_cast<Eigen::Index>(cols.size());
  Eigen::MatrixXd B(dim, m);
  for (Eigen::Index c = 0; c < m; ++c) B.col(c) = cols[static_cast<std::size_t>(c)];
  Vector o = Eigen::Map<Vector>(off.data(), m);
  // f(alpha) = ||B alpha||^2/(2 lambda) - o.alpha  (minimize); grad = B^T B alpha / lambda - o.
  const Eigen::MatrixXd Q = B.transpose() * B / lambda;
  const double L = std::max(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Q).eigenvalues().maxCoeff(), 1e-12);
  auto project = [&](Vector& a) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto b = static_cast<Eigen::Index>(block[i]), e = static_cast<Eigen::Index>(block[i + 1]);
      std::vector<double> s(a.data() + b, a.data() + e);
      std::sort(s.begin(), s.end(), std::greater<>());
      double cum = 0, tau = 0;
      for (std::size_t r = 0; r < s.size(); ++r) {
        cum += s[r];
        const double t = (cum - 1) / static_cast<double>(r + 1);
        if (s[r] - t > 0) tau = t;
      }
      for (Eigen::Index c = b; c < e; ++c) a[c] = std::max(a[c] - tau, 0.0);
    }
  };
  Vector a = Vector::Zero(m);
  for (std::size_t i = 0; i < n; ++i) {  // start at alpha = ground truth labelings: uniform is fine too
    const auto b = static_cast<Eigen::Index>(block[i]), e = static_cast<Eigen::Index>(block[i + 1]);
    a.segment(b, e - b).setConstant(1.0 / static_cast<double>(e - b));
  }
  Vector yk = a, prev = a;
  double t = 1;
  for (int it = 0; it < iterations; ++it) {
    Vector next = yk - (Q * yk - o) / L;
    project(next);
    const double tn = (1 + std::sqrt(1 + 4 * t * t)) / 2;
    yk = next + ((t - 1) / tn) * (next - prev);
    prev = next;
    t = tn;
  }
  QpSolution s;
  const Vector phi_star = B * prev;
  s.w = -phi_star / lambda;
  s.dual = -phi_star.squaredNorm() / (2 * lambda) + o.dot(prev);
  double hinge = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double best = -1e300;
    for (std::size_t c = block[i]; c < block[i + 1]; ++c)
      best = std::max(best, cols[c].dot(s.w) + off[c]);
    hinge += best;
  }
  s.primal = 0.5 * lambda * s.w.squaredNorm() + hinge;
  return s;
}

/// The dual is certified: primal >= dual - tol at every checkpoint.
inline void check_primal_ge_dual(const TestRecorder& rec, double tol = 1e-12) {
  for (const auto& r : rec.rows) {
    REQUIRE(r.m.primal);
    REQUIRE(r.m.dual);
    CHECK_MESSAGE(*r.m.primal >= *r.m.dual - tol,
                  "passes " << r.passes << ": primal " << *r.m.primal << " < dual " << *r.m.dual);
  }
}

/// The last checkpoint against an independent optimum: the primal is within the run's own gap
/// (+ slack) of the optimum, not below the optimal dual, and the run's dual not above the
/// optimal primal (both up to tol).
inline void check_final_against_qp(const TestRecorder& rec, const QpSolution& qp, double slack, double tol) {
  const auto& m = rec.rows.back().m;
  CHECK(*m.primal - qp.dual <= *m.primal - *m.dual + slack);
  CHECK(*m.primal >= qp.dual - tol);
  CHECK(*m.dual <= qp.primal + tol);
}

/// Runs solver plugin `name` with `params` on (train, test) and `oracle`; `make_oracle` is the
/// oracle factory a threaded solver asks for (as the runner's SolverContext::make_oracle).
inline std::unique_ptr<TestRecorder> run_solver(const std::string& name, const Data& data, StructuredOracle& oracle,
                                                double lambda, const json& params, double max_passes, double gap,
                                                OracleCounters* counters, double every = 1,
                                                std::uint64_t seed = 1,
                                                std::function<std::shared_ptr<Oracle>()> make_oracle = {}) {
  auto solver = dualgap::test::make<Solver>(Kind::solver, name, params);
  oracle.attach_counters(counters);
  auto rec = std::make_unique<TestRecorder>(max_passes, gap, counters, every);
  Problem pb;
  pb.data = &data;
  pb.oracle = &oracle;
  pb.lambda = lambda;
  rec->bind(pb, *solver);
  SolverContext ctx;
  ctx.recorder = rec.get();
  ctx.seed = seed;
  ctx.make_oracle = std::move(make_oracle);
  solver->solve(pb, ctx);
  oracle.attach_counters(nullptr);
  return rec;
}

/// Runs the bcfw solver as the paper defines it: Frank-Wolfe block steps (block_step: fw) unless
/// params say otherwise, since the default picks exact block steps on multi-class data and
/// these tests are about the paper's algorithms.
inline std::unique_ptr<TestRecorder> run_bcfw(const Data& data, StructuredOracle& oracle, double lambda,
                                              const json& params, double max_passes, double gap,
                                              OracleCounters* counters, double every = 1,
                                              std::uint64_t seed = 1,
                                              std::function<std::shared_ptr<Oracle>()> make_oracle = {}) {
  json p = params;
  if (!p.contains("block_step")) p["block_step"] = "fw";
  return run_solver("bcfw", data, oracle, lambda, p, max_passes, gap, counters, every, seed,
                    std::move(make_oracle));
}

/// A multi-class oracle with a class-dependent loss and a constant term c(y), by enumeration:
/// exercises the block offsets o_i(k) = Delta(y_i, k) + c(k) - c(y_i) of the exact step.
class WeightedMulticlassOracle final : public dualgap::StructuredOracle {
 public:
  double loss(const Examples& ex, std::size_t i, const int* y) const override {
    const int t = ex.y[static_cast<std::size_t>(ex.unit_begin(i))];
    return y[0] == t ? 0.0 : 1.0 + 0.5 * ((y[0] + t) % 3);
  }
  double constant(const Examples&, std::size_t, const int* y) const override { return 0.1 * (y[0] % 4); }

 protected:
  void argmax(const Examples& ex, std::size_t i, const double* unary, const double*, bool loss_augmented,
              Labeling& out) override {
    double best = -1e300;
    for (int k = 0; k < ex.num_classes; ++k) {
      const double v = unary[k] + constant(ex, i, &k) + (loss_augmented ? loss(ex, i, &k) : 0.0);
      if (v > best) best = v, out.labels[0] = k;
    }
  }
};

}  // namespace bcfw_test
