// Multi-class boosting: stumps oracle against brute force, the closed-form coordinate
// update against 1-D numeric minimization, FCD = L-BFGS-B = projected gradient on a fixed
// restricted master problem, and the column-generation solvers against the optimum of the
// full problem (all stumps as columns), with primal >= optimum >= certified dual at every
// checkpoint.
#include <algorithm>
#include <cmath>
#include <random>

#include "boosting/master_problem.hpp"
#include "dualgap/oracles/weak_learner.hpp"
#include "dualgap/solver.hpp"
#include "test_support.hpp"

using namespace dualgap;
using boosting::Column;
using boosting::MasterProblem;

namespace {

Examples random_examples(int n, int d, int K, std::uint64_t seed, bool integer_values) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> v(0, 4);
  DenseMatrix X(n, d);
  Examples ex;
  ex.num_classes = K;
  for (int i = 0; i < n; ++i) {
    const int c = i % K;
    ex.y.push_back(c);
    for (int f = 0; f < d; ++f)
      X(i, f) = integer_values ? v(rng) : u(rng) + (f == c % d ? 0.7 * c : 0.0);
  }
  ex.X = FeatureMatrix(X);
  return ex;
}

DenseMatrix random_weights(int n, int K, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  DenseMatrix W(n, K);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < K; ++c) W(i, c) = g(rng);
  return W;
}

// Every distinct stump of the data: constant ones and h = s (x_f > v) for each value v.
std::vector<Stump> all_stumps(const Examples& ex) {
  std::vector<Stump> out;
  const auto& X = ex.X.dense();
  for (int f = 0; f < X.cols(); ++f) {
    std::vector<double> vals;
    for (int i = 0; i < X.rows(); ++i) vals.push_back(X(i, f));
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    std::vector<double> thr{vals.front() - 1.0};
    for (std::size_t k = 0; k + 1 < vals.size(); ++k) thr.push_back(vals[k]);
    for (double t : thr)
      for (int s : {-1, 1}) out.push_back(Stump{f, t, s, -1, 0});
  }
  return out;
}

double edge(const Examples& ex, const Stump& h, const DenseMatrix& W, int c) {
  double e = 0;
  for (int i = 0; i < W.rows(); ++i) e += W(i, c) * h(ex.X.dense()(i, h.feature));
  return e;
}

using TestRecorder = dualgap::test::MemoryRecorder;

double extra(const Scores& m, const std::string& k) {
  for (auto& [n, v] : m.extra)
    if (n == k) return v;
  return std::nan("");
}

// Projected gradient with Armijo backtracking: a slow, simple reference.
double projected_gradient(MasterProblem& mp, int iters) {
  const std::size_t n = mp.size();
  double f = mp.objective();
  double step = 1.0;
  for (int it = 0; it < iters; ++it) {
    std::vector<double> g(n), w0 = mp.w();
    for (std::size_t j = 0; j < n; ++j) g[j] = mp.gradient(j);
    for (step *= 2;; step *= 0.5) {
      double decrease = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double wn = std::max(0.0, w0[j] - step * g[j]);
        decrease += g[j] * (w0[j] - wn);
        mp.w_mut()[j] = wn;
      }
      mp.recompute_F();
      const double fn = mp.objective();
      if (fn <= f - 1e-4 * decrease || step < 1e-20) {
        f = fn;
        break;
      }
    }
  }
  return f;
}

MasterProblem random_master(const Examples& ex, int columns_per_class, double C, std::uint64_t seed) {
  MasterProblem mp(ex.y, ex.num_classes, C);
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution b(0.5);
  for (int c = 0; c < ex.num_classes; ++c)
    for (int k = 0; k < columns_per_class; ++k) {
      Column col;
      col.cls = c;
      col.stump.feature = k;
      for (std::size_t i = 0; i < ex.y.size(); ++i)
        col.h.push_back(static_cast<signed char>(ex.y[i] == c && b(rng) ? 1 : (b(rng) ? 1 : -1)));
      mp.add(col);
    }
  return mp;
}

}  // namespace

TEST_CASE("stumps oracle: best per class, shared and vote stumps equal brute force") {
  auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
  OracleCounters counters;
  oracle->attach_counters(&counters);
  for (int trial = 0; trial < 6; ++trial) {
    const int n = 9 + trial, d = 1 + trial % 3, K = 2 + trial % 3;
    Examples ex = random_examples(n, d, K, 100 + trial, trial % 2 == 0);
    oracle->prepare(ex);
    const DenseMatrix W = random_weights(n, K, 7 + trial);
    const auto stumps = all_stumps(ex);

    std::vector<Stump> best;
    oracle->best_per_class(W, best);
    REQUIRE(best.size() == static_cast<std::size_t>(K));
    double best_all = -1;
    for (int c = 0; c < K; ++c) {
      double bf = -1e300;
      for (const auto& h : stumps) bf = std::max(bf, edge(ex, h, W, c));
      CHECK(best[c].edge == doctest::Approx(bf).epsilon(1e-12));
      CHECK(best[c].cls == c);
      // The returned stump really has the reported edge (predict agrees with the search).
      std::vector<signed char> h;
      oracle->predict(best[c], ex.X, h);
      double e = 0;
      for (int i = 0; i < n; ++i) e += W(i, c) * h[i];
      CHECK(e == doctest::Approx(bf).epsilon(1e-12));
      best_all = std::max(best_all, bf);
    }
    CHECK(oracle->best_shared(W).edge == doctest::Approx(best_all).epsilon(1e-12));

    Stump v;
    std::vector<int> votes;
    oracle->best_vote(W, v, votes);
    double bf_vote = -1;
    for (const auto& h : stumps) {
      double s = 0;
      for (int c = 0; c < K; ++c) s += std::abs(edge(ex, h, W, c));
      bf_vote = std::max(bf_vote, s);
    }
    CHECK(v.edge == doctest::Approx(bf_vote).epsilon(1e-12));
    std::vector<signed char> h;
    oracle->predict(v, ex.X, h);
    double s = 0;
    for (int c = 0; c < K; ++c) {
      double e = 0;
      for (int i = 0; i < n; ++i) e += W(i, c) * h[i];
      s += votes[c] * e;
    }
    CHECK(s == doctest::Approx(bf_vote).epsilon(1e-12));
  }
  CHECK(counters.exact_calls == 6 * 3);  // per_class + shared + vote, each counted once
}

TEST_CASE("stumps oracle: rejects a weight table of the wrong shape") {
  auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
  Examples ex = random_examples(10, 2, 3, 1, false);
  oracle->prepare(ex);
  std::vector<Stump> out;
  CHECK_THROWS_AS(oracle->best_per_class(DenseMatrix::Zero(10, 2), out), std::invalid_argument);
}

TEST_CASE("closed-form coordinate update (12) equals 1-D numeric minimization") {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> lu(-6, 3);
  for (int trial = 0; trial < 200; ++trial) {
    const double vp = std::exp(lu(rng)), vm = std::exp(lu(rng)), a = std::exp(lu(rng));
    auto g = [&](double w) { return w + (vm * std::exp(w) + vp * std::exp(-w)) / a; };
    // Golden-section search on [0, 40] (g is convex).
    double lo = 0, hi = 40;
    const double r = (std::sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 200; ++it) {
      const double m1 = hi - r * (hi - lo), m2 = lo + r * (hi - lo);
      (g(m1) < g(m2) ? hi : lo) = g(m1) < g(m2) ? m2 : m1;
    }
    const double w = MasterProblem::closed_form(vp, vm, a, false);
    CHECK(g(w) <= g(0.5 * (lo + hi)) + 1e-12 * std::abs(g(w)));
    CHECK(w == doctest::Approx(0.5 * (lo + hi)).epsilon(1e-6).scale(1.0));
  }
  // (13) is the C -> infinity limit of (12).
  CHECK(MasterProblem::closed_form(3.0, 0.5, 1e-12, false) ==
        doctest::Approx(MasterProblem::closed_form(3.0, 0.5, 1e-12, true)).epsilon(1e-9));
}

TEST_CASE("FCD, L-BFGS-B and projected gradient reach the same restricted optimum") {
  Examples ex = random_examples(40, 3, 3, 11, false);
  for (double C : {10.0, 1e3}) {
    MasterProblem a = random_master(ex, 6, C, 5), b = a, c = a;
    dualgap::SplitMix64 rng(1);
    boosting::FcdOptions fo;
    fo.eps = 1e-10;
    fo.tau_max = 0;
    std::vector<std::size_t> all(a.size());
    for (std::size_t j = 0; j < all.size(); ++j) all[j] = j;
    const auto st = boosting::fcd(a, all, fo, rng);
    CHECK(st.max_violation <= 1e-10);
    a.recompute_F();  // drop incremental drift before comparing
    boosting::LbfgsbOptions lo;
    lo.factr = 10;
    lo.pgtol = 1e-12;
    boosting::lbfgsb(b, lo);
    const double pg = projected_gradient(c, 20000);
    INFO("C=" << C << " fcd=" << a.objective() << " lbfgsb=" << b.objective() << " pg=" << pg);
    // Every sweep order, with and without shrinking, in calls of at most tau_max = 3 working-set
    // iterations restarted from the working set the last call left (the fixed-problem mode).
    for (auto order : {boosting::FcdOrder::permutation, boosting::FcdOrder::random, boosting::FcdOrder::cyclic})
      for (bool shrink : {true, false}) {
        MasterProblem v = random_master(ex, 6, C, 5);
        boosting::FcdOptions vo = fo;
        vo.order = order;
        vo.shrinking = shrink;
        vo.tau_max = 3;
        std::vector<std::size_t> S = all;
        boosting::FcdStats vs;
        int calls = 0;
        do {
          vs = boosting::fcd(v, S, vo, rng, [](const boosting::FcdStats&) { return true; });
          S = vs.working_set;
        } while (!vs.converged && ++calls < 100000);
        CHECK(vs.converged);
        CHECK(vs.max_violation <= 1e-10);
        v.recompute_F();
        CHECK(v.objective() == doctest::Approx(b.objective()).epsilon(1e-6));
      }
    CHECK(a.objective() == doctest::Approx(b.objective()).epsilon(1e-6));
    CHECK(a.objective() == doctest::Approx(pg).epsilon(1e-6));
    CHECK(a.objective() < C);  // strictly better than w = 0
    // Certified dual of the restricted problem sandwiches the optimum.
    CHECK(a.dual(a.max_column_edge()) <= a.objective() + 1e-9 * C);
    CHECK(a.dual(a.max_column_edge()) == doctest::Approx(a.objective()).epsilon(1e-5));
  }
}

TEST_CASE("incremental mu (20) matches recomputation from F") {
  Examples ex = random_examples(30, 2, 4, 2, false);
  MasterProblem mp = random_master(ex, 3, 100.0, 9);
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(0, 2);
  for (int k = 0; k < 50; ++k) mp.set_w(static_cast<std::size_t>(k) % mp.size(), u(rng));
  const double inc = mp.objective();
  std::vector<double> g_inc;
  for (std::size_t j = 0; j < mp.size(); ++j) g_inc.push_back(mp.gradient(j));
  mp.recompute_F();
  CHECK(mp.objective() == doctest::Approx(inc).epsilon(1e-12));
  for (std::size_t j = 0; j < mp.size(); ++j) CHECK(mp.gradient(j) == doctest::Approx(g_inc[j]).epsilon(1e-9));
}

TEST_CASE("master problem: F, edge weights, gradients and P in the caller's example order") {
  // MasterProblem holds the examples sorted by class internally; everything it returns must be
  // in the caller's order and equal the definitions (2), (4), (16) computed directly.
  std::mt19937_64 rng(17);
  const int n = 37, K = 4;
  const double C = 50.0;
  std::vector<int> y(n);
  std::uniform_int_distribution<int> lab(0, K - 1);
  for (int& v : y) v = lab(rng);
  MasterProblem mp(y, K, C);
  std::bernoulli_distribution b(0.5);
  std::uniform_real_distribution<double> u(0, 1.5);
  for (int j = 0; j < 9; ++j) {
    Column col;
    col.cls = j % K;
    col.stump.feature = j;
    for (int i = 0; i < n; ++i) col.h.push_back(static_cast<signed char>(b(rng) ? 1 : -1));
    mp.add(col);
  }
  for (int k = 0; k < 20; ++k) mp.set_w(static_cast<std::size_t>(k) % mp.size(), u(rng));
  DenseMatrix F = DenseMatrix::Zero(n, K);
  double l1 = 0;
  for (std::size_t j = 0; j < mp.size(); ++j) {
    l1 += mp.w()[j];
    for (int i = 0; i < n; ++i) F(i, mp.column(j).cls) += mp.w()[j] * mp.column(j).h[i];
  }
  const double cp = C / (n * (K - 1.0));
  DenseMatrix W = DenseMatrix::Zero(n, K);
  double loss = 0;
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < K; ++c) {
      if (c == y[i]) continue;
      const double m = std::exp(F(i, c) - F(i, y[i]));
      loss += m;
      W(i, c) -= cp * m;
      W(i, y[i]) += cp * m;
    }
  DenseMatrix Wm;
  mp.edge_weights(Wm);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < K; ++c) {
      CHECK(mp.F()(i, c) == doctest::Approx(F(i, c)).epsilon(1e-12).scale(1.0));
      CHECK(Wm(i, c) == doctest::Approx(W(i, c)).epsilon(1e-10).scale(1.0));
    }
  CHECK(mp.objective() == doctest::Approx(l1 + cp * loss).epsilon(1e-12));
  for (std::size_t j = 0; j < mp.size(); ++j) {
    double e = 0;
    for (int i = 0; i < n; ++i) e += mp.column(j).h[i] * W(i, mp.column(j).cls);
    CHECK(mp.gradient(j) == doctest::Approx(1.0 - e).epsilon(1e-10).scale(1.0));
  }
}

namespace {
// Optimum of the full problem: every stump of every class as a column, solved by L-BFGS-B.
double full_optimum(const Examples& ex, double C) {
  auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
  MasterProblem mp(ex.y, ex.num_classes, C);
  for (const auto& s : all_stumps(ex))
    for (int c = 0; c < ex.num_classes; ++c) {
      Column col;
      col.stump = s;
      col.cls = c;
      oracle->predict(s, ex.X, col.h);
      mp.add(col);
    }
  boosting::LbfgsbOptions lo;
  lo.factr = 10;
  lo.pgtol = 1e-11;
  boosting::lbfgsb(mp, lo);
  return mp.objective();
}

Data tiny_data() {
  Data data;
  data.name = "tiny";
  data.train = random_examples(24, 2, 3, 21, false);
  data.test = random_examples(15, 2, 3, 22, false);
  return data;
}
}  // namespace

TEST_CASE("column generation: primal >= optimum >= certified dual; CW and MultiBoost converge to it") {
  const Data data = tiny_data();
  const double C = 20.0;
  const double opt = full_optimum(data.train, C);
  struct Case {
    std::string plugin;
    json params;
  };
  const std::vector<Case> cases = {
      {"multiboost_cw", {{"eps", 1e-8}, {"tau_max", 1000}}},
      {"multiboost_cw", {{"master", "lbfgsb"}, {"lbfgs_factr", 10.0}, {"lbfgs_pgtol", 1e-11}}},
      {"multiboost", {{"lbfgs_factr", 10.0}, {"lbfgs_pgtol", 1e-11}}},
      {"multiboost", {{"master", "fcd"}, {"eps", 1e-8}, {"tau_max", 1000}}},
      {"multiboost_cw", {{"tau_max", 1}, {"update", "large_c"}}},  // CW-1: only primal >= dual
  };
  for (const auto& cs : cases) {
    INFO(cs.plugin << " " << cs.params.dump());
    auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
    OracleCounters counters;
    oracle->attach_counters(&counters);
    auto solver = test::make<Solver>(Kind::solver, cs.plugin, cs.params);
    Problem pb;
    pb.data = &data;
    pb.oracle = oracle.get();
    pb.lambda = 1.0 / C;
    TestRecorder rec(300);
    SolverContext ctx;
    ctx.recorder = &rec;
    ctx.seed = 5;
    rec.bind(pb, *solver);
    solver->solve(pb, ctx);
    REQUIRE(rec.rows.size() >= 2);
    CHECK(*rec.rows.front().primal == doctest::Approx(C));  // P(0) = C
    for (const auto& m : rec.rows) {
      REQUIRE(m.primal.has_value());
      REQUIRE(m.dual.has_value());
      CHECK(*m.primal >= opt - 1e-7 * C);
      CHECK(*m.dual <= opt + 1e-7 * C);
      CHECK(m.test_error.has_value());
    }
    // One oracle call per boosting iteration (the last one also certifies the dual).
    CHECK(counters.exact_calls == static_cast<std::int64_t>(rec.passes.back()) + 1);
    const auto& last = rec.rows.back();
    if (cs.params.value("tau_max", 2) != 1) {
      CHECK(*last.primal == doctest::Approx(opt).epsilon(1e-5));
      CHECK(*last.primal - *last.dual <= 1e-4 * opt);
    }
    CHECK(extra(last, "weak_learners") >= 1);
  }
}

TEST_CASE("fixed master mode (Fig. 6): FCD and L-BFGS-B reach the same restricted optimum") {
  const Data data = tiny_data();
  std::vector<double> finals, columns;
  for (const std::string master : {"fcd", "lbfgsb"}) {
    auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
    auto solver = test::make<Solver>(Kind::solver, "multiboost_cw",
                                     {{"master", master}, {"master_only", 5}, {"eps", 1e-7},
                                      {"lbfgs_factr", 10.0}, {"lbfgs_pgtol", 1e-10}});
    Problem pb;
    pb.data = &data;
    pb.oracle = oracle.get();
    pb.lambda = 1e-2;
    TestRecorder rec(1e6);
    SolverContext ctx;
    ctx.recorder = &rec;
    rec.bind(pb, *solver);
    solver->solve(pb, ctx);
    REQUIRE(rec.rows.size() >= 2);
    CHECK(*rec.rows.front().primal == doctest::Approx(100.0));  // same start, w = 0
    for (const auto& m : rec.rows) CHECK(*m.dual <= *m.primal + 1e-9);
    // The fixed problem's own certified dual (edges over its columns) closes its gap.
    for (const auto& m : rec.rows) CHECK(extra(m, "restricted_dual") <= *m.primal + 1e-9);
    CHECK(*rec.rows.back().primal - extra(rec.rows.back(), "restricted_dual") <= 1e-5 * *rec.rows.back().primal);
    finals.push_back(*rec.rows.back().primal);
    columns.push_back(extra(rec.rows.back(), "columns"));
    CHECK(columns.back() <= 15);  // 5 stage-wise iterations x 3 classes, repeated stumps merged
  }
  CHECK(columns[0] == columns[1]);  // the same fixed problem for both master solvers
  CHECK(finals[0] == doctest::Approx(finals[1]).epsilon(1e-6));
}

TEST_CASE("adaboost_mh: exponential Hamming loss decreases, training error falls") {
  Data data;
  data.train = random_examples(60, 3, 3, 31, false);
  data.test = random_examples(30, 3, 3, 32, false);
  auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
  auto solver = test::make<Solver>(Kind::solver, "adaboost_mh");
  Problem pb;
  pb.data = &data;
  pb.oracle = oracle.get();
  pb.lambda = 1;
  TestRecorder rec(60);
  SolverContext ctx;
  ctx.recorder = &rec;
  rec.bind(pb, *solver);
  solver->solve(pb, ctx);
  REQUIRE(rec.rows.size() == 61);
  CHECK(*rec.rows.front().primal == doctest::Approx(1.0));
  for (std::size_t k = 1; k < rec.rows.size(); ++k) CHECK(*rec.rows[k].primal < *rec.rows[k - 1].primal);
  CHECK(*rec.rows.back().train_error < *rec.rows[1].train_error);
  CHECK(!rec.rows.back().dual.has_value());
}

TEST_CASE("adaboost_ecc: pairwise exponential loss never increases, training error falls") {
  Data data;
  data.train = random_examples(60, 3, 4, 33, false);
  data.test = random_examples(30, 3, 4, 34, false);
  auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
  auto solver = test::make<Solver>(Kind::solver, "adaboost_ecc");
  Problem pb;
  pb.data = &data;
  pb.oracle = oracle.get();
  pb.lambda = 1;
  TestRecorder rec(60);
  SolverContext ctx;
  ctx.recorder = &rec;
  ctx.seed = 7;
  rec.bind(pb, *solver);
  solver->solve(pb, ctx);
  REQUIRE(rec.rows.size() == 61);
  CHECK(*rec.rows.front().primal == doctest::Approx(1.0));
  // alpha is the exact line search along the new term, so Z_t <= 1 (strict when the edge > 0).
  for (std::size_t k = 1; k < rec.rows.size(); ++k) {
    CHECK(*rec.rows[k].primal <= *rec.rows[k - 1].primal * (1 + 1e-12));
    CHECK(extra(rec.rows[k], "edge") >= 0.0);
  }
  CHECK(*rec.rows.back().primal < 0.5);
  CHECK(*rec.rows.back().train_error < *rec.rows[1].train_error);
  CHECK(!rec.rows.back().dual.has_value());
}

// --- The core's boosting objective against an independent recomputation ------------------

namespace {

// Keeps a copy of every ensemble a solver hands over, besides the core's Scores.
struct EnsembleRecorder : test::MemoryRecorder {
  std::vector<Ensemble> ensembles;
  using MemoryRecorder::MemoryRecorder;
  Action checkpoint(double p, const std::function<void(Iterate&)>& fill) override {
    return MemoryRecorder::checkpoint(p, [&](Iterate& it) {
      fill(it);
      REQUIRE(it.ensemble);
      ensembles.push_back(*it.ensemble);
    });
  }
};

// F_c(x_i) = sum_t alpha(t, c) h_t(x_i), with the stump formula itself (no oracle).
DenseMatrix scores_of(const Ensemble& e, const Examples& ex) {
  const auto& X = ex.X.dense();
  DenseMatrix F = DenseMatrix::Zero(X.rows(), e.alpha.cols());
  for (std::size_t t = 0; t < e.stumps.size(); ++t)
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const double h = e.stumps[t](X(i, e.stumps[t].feature));
      for (Eigen::Index c = 0; c < F.cols(); ++c) F(i, c) += e.alpha(static_cast<Eigen::Index>(t), c) * h;
    }
  return F;
}

double error_of(const DenseMatrix& F, const std::vector<int>& y) {
  int wrong = 0;
  for (Eigen::Index i = 0; i < F.rows(); ++i) {
    int best = 0;
    for (int c = 1; c < F.cols(); ++c)
      if (F(i, c) > F(i, best)) best = c;
    wrong += best != y[static_cast<std::size_t>(i)];
  }
  return static_cast<double>(wrong) / static_cast<double>(F.rows());
}

// Problem (2) and its certified dual, written out from NOTES.md section 1: the KKT lambda, its
// edges over every stump of the data (brute force), s = max(1, best edge), D(lambda / s).
std::pair<double, double> exp_primal_dual(const Ensemble& e, const Examples& ex, double C) {
  const DenseMatrix F = scores_of(e, ex);
  const int n = static_cast<int>(F.rows()), K = static_cast<int>(F.cols());
  const double cp = C / (n * (K - 1.0));
  double l1 = 0, loss = 0;
  for (Eigen::Index t = 0; t < e.alpha.rows(); ++t)
    for (int c = 0; c < K; ++c) l1 += std::abs(e.alpha(t, c));
  DenseMatrix W = DenseMatrix::Zero(n, K);
  for (int i = 0; i < n; ++i)
    for (int y = 0; y < K; ++y) {
      if (y == ex.y[i]) continue;
      const double lambda = cp * std::exp(F(i, y) - F(i, ex.y[i]));
      loss += lambda;
      W(i, y) -= lambda;
      W(i, ex.y[i]) += lambda;
    }
  double best = 0;
  for (const auto& h : all_stumps(ex))
    for (int c = 0; c < K; ++c) best = std::max(best, edge(ex, h, W, c));
  const double s = std::max(1.0, best);
  double dual = 0;
  for (int i = 0; i < n; ++i)
    for (int y = 0; y < K; ++y) {
      if (y == ex.y[i]) continue;
      const double lambda = cp * std::exp(F(i, y) - F(i, ex.y[i])) / s;
      dual += lambda * (1.0 - std::log(1.0 / cp) - std::log(lambda));
    }
  return {l1 + loss, dual};
}

}  // namespace

TEST_CASE("boosting objective: recorded primal and dual equal a recomputation from the ensemble") {
  Data data;
  data.train = random_examples(40, 3, 4, 41, false);
  data.test = random_examples(20, 3, 4, 42, false);
  const double C = 50.0;
  const std::vector<std::pair<std::string, json>> cases = {
      {"multiboost_cw", json::object()},
      {"multiboost_cw", {{"master", "lbfgsb"}}},
      {"multiboost_cw", {{"tau_max", 1}, {"update", "large_c"}}},
      {"multiboost", json::object()},
  };
  for (const auto& [plugin, params] : cases) {
    const std::string shown = plugin + " " + params.dump();  // (clang 14 captures no structured binding)
    INFO(shown);
    auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
    OracleCounters counters;
    oracle->attach_counters(&counters);
    auto solver = test::make<Solver>(Kind::solver, plugin, params);
    Problem pb;
    pb.data = &data;
    pb.oracle = oracle.get();
    pb.lambda = 1.0 / C;
    EnsembleRecorder rec(40);
    rec.bind(pb, *solver);
    SolverContext ctx;
    ctx.recorder = &rec;
    ctx.seed = 3;
    solver->solve(pb, ctx);
    REQUIRE(rec.rows.size() >= 5);
    REQUIRE(rec.ensembles.size() == rec.rows.size());
    for (std::size_t k = 0; k < rec.rows.size(); ++k) {
      const Scores& m = rec.rows[k];
      const auto [primal, dual] = exp_primal_dual(rec.ensembles[k], data.train, C);
      REQUIRE(m.primal.has_value());
      REQUIRE(m.dual.has_value());
      CHECK(*m.primal == doctest::Approx(primal).epsilon(1e-9));
      CHECK(*m.dual == doctest::Approx(dual).epsilon(1e-9).scale(primal));
      CHECK(*m.dual <= *m.primal);
      // The solver's own view of the objective agrees with the core's.
      CHECK(*m.primal == doctest::Approx(extra(m, "master_objective")).epsilon(1e-9));
      CHECK(*m.train_error == error_of(scores_of(rec.ensembles[k], data.train), data.train.y));
      CHECK(*m.test_error == error_of(scores_of(rec.ensembles[k], data.test), data.test.y));
    }
    CHECK(*rec.rows.back().primal < *rec.rows.front().primal);
    // The dual's oracle call is evaluation: one per checkpoint, none counted as training.
    CHECK(counters.eval_calls == static_cast<std::int64_t>(rec.rows.size()));
    CHECK(counters.exact_calls == static_cast<std::int64_t>(rec.passes.back()) + 1);
  }
}

TEST_CASE("boosting objective: AdaBoost's losses equal a recomputation from the ensemble") {
  Data data;
  data.train = random_examples(50, 3, 4, 43, false);
  data.test = random_examples(20, 3, 4, 44, false);
  const int n = 50, K = 4;
  struct Case {
    std::string plugin;
    json params;
  };
  for (const Case& cs : {Case{"adaboost_mh", json::object()}, Case{"adaboost_mh", {{"init", "balanced"}}},
                         Case{"adaboost_ecc", json::object()}}) {
    INFO(cs.plugin << " " << cs.params.dump());
    auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
    OracleCounters counters;
    oracle->attach_counters(&counters);
    auto solver = test::make<Solver>(Kind::solver, cs.plugin, cs.params);
    Problem pb;
    pb.data = &data;
    pb.oracle = oracle.get();
    pb.lambda = 1;
    EnsembleRecorder rec(30);
    rec.bind(pb, *solver);
    SolverContext ctx;
    ctx.recorder = &rec;
    ctx.seed = 9;
    solver->solve(pb, ctx);
    REQUIRE(rec.rows.size() == 31);
    const bool balanced = cs.params.value("init", "") == "balanced";
    for (std::size_t k = 0; k < rec.rows.size(); ++k) {
      const DenseMatrix F = scores_of(rec.ensembles[k], data.train);
      double loss = 0;
      for (int i = 0; i < n; ++i)
        for (int l = 0; l < K; ++l) {
          const int yi = data.train.y[i];
          if (cs.plugin == "adaboost_ecc") {
            if (l != yi) loss += std::exp(F(i, l) - F(i, yi)) / (n * (K - 1.0));
          } else {
            const double Y = l == yi ? 1.0 : -1.0;
            const double d = !balanced ? 1.0 / (n * K) : l == yi ? 0.5 / n : 0.5 / (n * (K - 1.0));
            loss += d * std::exp(-Y * F(i, l));
          }
        }
      const Scores& m = rec.rows[k];
      REQUIRE(m.primal.has_value());
      CHECK(*m.primal == doctest::Approx(loss).epsilon(1e-9));
      CHECK(!m.dual.has_value());
      CHECK(*m.train_error == error_of(F, data.train.y));
      CHECK(*m.test_error == error_of(scores_of(rec.ensembles[k], data.test), data.test.y));
    }
    CHECK(*rec.rows.front().primal == doctest::Approx(1.0));  // the loss at f = 0
    CHECK(counters.eval_calls == 0);                          // no dual, no evaluation call
  }
}

TEST_CASE("boosting objective: any sequence of ensembles is scored right (per-stump cache)") {
  // Re-scoring saved iterates hands the objective ensembles in any order, not only growing ones:
  // rows that vanish or whose stump changed must leave the cached scores.
  const Data data = tiny_data();
  const double C = 20.0;
  auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
  auto solver = test::make<Solver>(Kind::solver, "multiboost_cw");
  Problem pb;
  pb.data = &data;
  pb.oracle = oracle.get();
  pb.lambda = 1.0 / C;
  EnsembleRecorder rec(12);
  rec.bind(pb, *solver);
  SolverContext ctx;
  ctx.recorder = &rec;
  solver->solve(pb, ctx);
  REQUIRE(rec.ensembles.size() >= 6);
  std::vector<Ensemble> sequence = rec.ensembles;  // growing, as a run hands them over
  Ensemble changed = rec.ensembles.back();
  REQUIRE(changed.stumps.size() >= 3);
  changed.stumps[1].feature = 1 - changed.stumps[1].feature;  // another stump in the middle
  changed.stumps[1].threshold = 0.1;
  changed.alpha(1, 0) = 0.7;
  sequence.push_back(changed);
  sequence.push_back(rec.ensembles.back());
  sequence.insert(sequence.end(), rec.ensembles.rbegin(), rec.ensembles.rend());  // shrinking
  sequence.push_back(rec.ensembles[2]);
  auto objective = make_objective(pb, *solver);
  for (std::size_t k = 0; k < sequence.size(); ++k) {
    INFO("ensemble " << k);
    Scores m;
    score_checkpoint(*objective, nullptr, [&](Iterate& it) { it.ensemble = &sequence[k]; }, m);
    const auto [primal, dual] = exp_primal_dual(sequence[k], data.train, C);
    CHECK(*m.primal == doctest::Approx(primal).epsilon(1e-9));
    CHECK(*m.dual == doctest::Approx(dual).epsilon(1e-9).scale(primal));
    CHECK(*m.test_error == error_of(scores_of(sequence[k], data.test), data.test.y));
    CHECK(*m.train_error == error_of(scores_of(sequence[k], data.train), data.train.y));
  }
}

TEST_CASE("boosting objective: refuses a malformed ensemble, lambda = 0, a missing C, unknown losses") {
  const Data data = tiny_data();
  auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
  auto solver = test::make<Solver>(Kind::solver, "multiboost_cw");
  Problem pb;
  pb.data = &data;
  pb.oracle = oracle.get();
  pb.lambda = 0.1;
  auto objective = make_objective(pb, *solver);
  CHECK(objective->describe() == json{{"family", "boosting"}, {"loss", "exp"}, {"C", 10.0}});
  auto score = [&](const Ensemble& e) {
    Scores m;
    score_checkpoint(*objective, nullptr, [&](Iterate& it) { it.ensemble = &e; }, m);
  };
  Ensemble e;
  e.stumps = {Stump{0, 0.0, 1, 0, 0}};
  e.alpha = DenseMatrix::Zero(1, 2);  // K = 3
  CHECK_THROWS_WITH_AS(score(e), doctest::Contains("alpha is 1 x 2"), std::runtime_error);
  e.alpha = DenseMatrix::Zero(1, 3);
  e.stumps[0].feature = 2;  // d = 2
  CHECK_THROWS_WITH_AS(score(e), doctest::Contains("feature 2"), std::runtime_error);
  pb.lambda = 0;
  CHECK_THROWS_WITH_AS(make_objective(pb, *solver), doctest::Contains("lambda = 1/C must be > 0"),
                       std::invalid_argument);
  // A solver that names the boosting family with a bad specification.
  struct Named final : Solver {
    ObjectiveSpec spec;
    ObjectiveSpec objective(const Problem&) const override { return spec; }
    void solve(const Problem&, SolverContext&) override {}
  } named;
  named.spec = {"boosting", "exp", json::object()};
  CHECK_THROWS_WITH_AS(make_objective(pb, named), doctest::Contains("needs params {C: number}"), std::runtime_error);
  named.spec = {"boosting", "logistic", json::object()};
  CHECK_THROWS_WITH_AS(make_objective(pb, named), doctest::Contains("unknown boosting loss 'logistic'"),
                       std::runtime_error);
  named.spec = {"boosting", "exp_hamming", {{"weights", "odd"}}};
  CHECK_THROWS_WITH_AS(make_objective(pb, named), doctest::Contains("not 'odd'"), std::runtime_error);
}
