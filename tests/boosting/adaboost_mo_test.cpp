// AdaBoost.MO (plugin adaboost_mo) against a direct implementation of Schapire & Singer's
// algorithm written here from the paper (brute force over every stump of the data, multiplicative
// weight updates), and the core's loss-based decoding (loss exp_code) against brute force.
#include <algorithm>
#include <cmath>
#include <random>

#include "dualgap/oracles/weak_learner.hpp"
#include "dualgap/solver.hpp"
#include "test_support.hpp"

using namespace dualgap;

namespace {

Examples mo_examples(int n, int d, int K, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  DenseMatrix X(n, d);
  Examples ex;
  ex.num_classes = K;
  for (int i = 0; i < n; ++i) {
    const int c = i % K;
    ex.y.push_back(c);
    for (int f = 0; f < d; ++f) X(i, f) = u(rng) + (f == c % d ? 0.6 * c : 0.0);
  }
  ex.X = FeatureMatrix(X);
  return ex;
}

// Every distinct stump of the data: constant ones and h = s (x_f > v) for each value v.
std::vector<Stump> every_stump(const Examples& ex) {
  std::vector<Stump> out;
  const auto& X = ex.X.dense();
  for (int f = 0; f < X.cols(); ++f) {
    std::vector<double> vals;  // (the matrix is row-major: a column is strided)
    for (Eigen::Index i = 0; i < X.rows(); ++i) vals.push_back(X(i, f));
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    std::vector<double> thr{vals.front() - 1.0};
    thr.insert(thr.end(), vals.begin(), vals.end() - 1);
    for (double t : thr)
      for (int s : {-1, 1}) out.push_back(Stump{f, t, s, -1, 0});
  }
  return out;
}

std::vector<double> predictions(const Stump& h, const Examples& ex) {
  std::vector<double> p;
  for (Eigen::Index i = 0; i < ex.X.dense().rows(); ++i) p.push_back(h(ex.X.dense()(i, h.feature)));
  return p;
}

DenseMatrix code_of(const Solver& solver, const Problem& pb) {
  const json code = solver.objective(pb).params.at("code");
  DenseMatrix M(static_cast<Eigen::Index>(code.size()), static_cast<Eigen::Index>(code.at(0).size()));
  for (Eigen::Index k = 0; k < M.rows(); ++k)
    for (Eigen::Index l = 0; l < M.cols(); ++l) M(k, l) = code.at(k).at(l).get<double>();
  return M;
}

// One round of the direct implementation.
struct Round {
  std::vector<std::vector<double>> h;  // h_t(x_i, l) = phi_l(x_i), per column l
  double r = 0, alpha = 0, loss = 0;   // loss: prod_s Z_s after the round
  DenseMatrix D;                       // D_{t+1}
};

// Schapire & Singer (1999), AdaBoost.MO: AdaBoost.MH on the labels Y(i, l) = M(y_i, l), with
// h(x, l) = the best stump of column l, alpha = 1/2 ln((1+r)/(1-r)), D <- D exp(-alpha Y h) / Z.
// The stump of a column comes from a stumps oracle of its own, one call per column (the solver
// batches K columns per call): after the first round D takes few distinct values and several
// stumps tie for the best edge, so only the same search can name the same one. That it is a
// best one is checked here against exhaustive search over every stump of the data.
std::vector<Round> direct_mo(const Examples& ex, const DenseMatrix& M, int rounds) {
  const int n = static_cast<int>(ex.y.size()), L = static_cast<int>(M.cols()), K = ex.num_classes;
  const std::vector<Stump> stumps = every_stump(ex);
  auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
  oracle->prepare(ex);
  DenseMatrix D = DenseMatrix::Constant(n, L, 1.0 / (n * L));
  double loss = 1;
  std::vector<Round> out;
  for (int t = 0; t < rounds; ++t) {
    Round rd;
    for (int l = 0; l < L; ++l) {
      DenseMatrix W = DenseMatrix::Zero(n, K);
      for (int i = 0; i < n; ++i) W(i, 0) = D(i, l) * M(ex.y[i], l);
      std::vector<Stump> best;
      oracle->best_per_class(W, best);
      const std::vector<double> h = predictions(best[0], ex);
      double e = 0, exhaustive = -1;
      for (int i = 0; i < n; ++i) e += W(i, 0) * h[i];
      for (const Stump& s : stumps) {
        const std::vector<double> p = predictions(s, ex);
        double es = 0;
        for (int i = 0; i < n; ++i) es += W(i, 0) * p[i];
        exhaustive = std::max(exhaustive, es);
      }
      CHECK(e == doctest::Approx(exhaustive).epsilon(1e-12));
      rd.r += e;
      rd.h.push_back(h);
    }
    rd.alpha = 0.5 * std::log((1 + rd.r) / (1 - rd.r));
    double Z = 0;
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < L; ++l) {
        D(i, l) *= std::exp(-rd.alpha * M(ex.y[i], l) * rd.h[l][i]);
        Z += D(i, l);
      }
    D /= Z;
    loss *= Z;
    rd.loss = loss;
    rd.D = D;
    out.push_back(rd);
  }
  return out;
}

// F_l(x_i) = sum_t alpha(t, l) h_t(x_i), with the stump formula itself.
DenseMatrix code_scores(const Ensemble& e, const Examples& ex) {
  DenseMatrix F = DenseMatrix::Zero(static_cast<Eigen::Index>(ex.y.size()), e.alpha.cols());
  for (std::size_t t = 0; t < e.stumps.size(); ++t) {
    const std::vector<double> p = predictions(e.stumps[t], ex);
    for (Eigen::Index i = 0; i < F.rows(); ++i)
      for (Eigen::Index l = 0; l < F.cols(); ++l) F(i, l) += e.alpha(static_cast<Eigen::Index>(t), l) * p[i];
  }
  return F;
}

// Brute-force decoding: the class of least sum_l exp(-M(k, l) F_l) (loss-based) or of least
// Hamming distance between sign(F) and the code word (the decoding AdaBoost.MO does not use).
// Ties up to rounding (relative 1e-12; exact ties are common, e.g. one-vs-all after one round)
// go to the first class, as the core's decoding says.
double decoding_error(const DenseMatrix& F, const DenseMatrix& M, const std::vector<int>& y, bool hamming) {
  int wrong = 0;
  for (Eigen::Index i = 0; i < F.rows(); ++i) {
    int best = 0;
    double best_v = 0;
    for (int k = 0; k < M.rows(); ++k) {
      double v = 0;
      for (Eigen::Index l = 0; l < M.cols(); ++l)
        v += hamming ? (M(k, l) * F(i, l) <= 0) : std::exp(-M(k, l) * F(i, l));
      if (k == 0 || v < best_v * (1 - 1e-12)) best = k, best_v = v;
    }
    wrong += best != y[static_cast<std::size_t>(i)];
  }
  return static_cast<double>(wrong) / static_cast<double>(F.rows());
}

struct KeepEnsembles : test::MemoryRecorder {
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

}  // namespace

TEST_CASE("adaboost_mo: weights, weak hypotheses, alphas and loss equal a direct implementation") {
  Data data;
  data.train = mo_examples(40, 3, 4, 51);
  data.test = mo_examples(20, 3, 4, 52);
  const int n = 40, K = 4, rounds = 12;
  for (const json& params : {json::object(), json{{"code", "random_dense"}, {"code_length", 7}, {"code_seed", 3}},
                             json{{"code", "random_dense"}}}) {
    INFO(params.dump());
    auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
    OracleCounters counters;
    oracle->attach_counters(&counters);
    auto solver = test::make<Solver>(Kind::solver, "adaboost_mo", params);
    Problem pb;
    pb.data = &data;
    pb.oracle = oracle.get();
    pb.lambda = 1;
    const DenseMatrix M = code_of(*solver, pb);
    const int L = static_cast<int>(M.cols());
    CHECK(L == (params.empty() ? K : params.contains("code_length") ? 7 : 20));  // 20 = ceil(10 log2 4)
    KeepEnsembles rec(rounds);
    rec.bind(pb, *solver);
    SolverContext ctx;
    ctx.recorder = &rec;
    ctx.seed = 99;  // the code does not depend on it
    solver->solve(pb, ctx);
    REQUIRE(rec.rows.size() == rounds + 1);
    const std::vector<Round> ref = direct_mo(data.train, M, rounds);
    CHECK(*rec.rows[0].primal == doctest::Approx(1.0));
    for (int t = 1; t <= rounds; ++t) {
      INFO("round " << t);
      const Round& rd = ref[t - 1];
      const Ensemble& e = rec.ensembles[t];
      REQUIRE(e.stumps.size() == static_cast<std::size_t>(t * L));
      REQUIRE(e.alpha.cols() == L);
      // Round t's rows: column l's stump, with alpha_t in column l and 0 elsewhere.
      for (int l = 0; l < L; ++l) {
        const std::size_t row = static_cast<std::size_t>((t - 1) * L + l);
        CHECK(predictions(e.stumps[row], data.train) == rd.h[l]);
        CHECK(e.stumps[row].cls == l);
        for (int c = 0; c < L; ++c)
          CHECK(e.alpha(static_cast<Eigen::Index>(row), c) ==
                doctest::Approx(c == l ? rd.alpha : 0.0).epsilon(1e-10));
      }
      CHECK(rec.extra(static_cast<std::size_t>(t), "edge") == doctest::Approx(rd.r).epsilon(1e-10));
      CHECK(rec.extra(static_cast<std::size_t>(t), "weak_learners") == t * L);
      // The recorded loss is prod Z_t of the direct run, and the weights the solver's ensemble
      // implies, D_{t+1}(i, l) = exp(-M(y_i, l) f_l(x_i)) / sum, are the direct run's D_{t+1}.
      CHECK(*rec.rows[t].primal == doctest::Approx(rd.loss).epsilon(1e-10));
      CHECK(*rec.rows[t].primal < *rec.rows[t - 1].primal);
      const DenseMatrix F = code_scores(e, data.train);
      DenseMatrix D(n, L);
      for (int i = 0; i < n; ++i)
        for (int l = 0; l < L; ++l) D(i, l) = std::exp(-M(data.train.y[i], l) * F(i, l));
      D /= D.sum();
      CHECK((D - rd.D).cwiseAbs().maxCoeff() <= 1e-12);
      CHECK(*rec.rows[t].train_error == decoding_error(F, M, data.train.y, false));
      CHECK(*rec.rows[t].test_error == decoding_error(code_scores(e, data.test), M, data.test.y, false));
      CHECK(!rec.rows[t].dual.has_value());
    }
    CHECK(*rec.rows.back().train_error < *rec.rows[1].train_error);
    // One exact oracle call per block of K code columns per round; scoring makes none.
    CHECK(counters.exact_calls == rounds * ((L + K - 1) / K));
    CHECK(counters.eval_calls == 0);
  }
}

TEST_CASE("adaboost_mo: the random dense code is valid, deterministic in code_seed, not in the run seed") {
  Data data;
  data.train = mo_examples(12, 2, 6, 53);
  Problem pb;
  pb.data = &data;
  auto a = test::make<Solver>(Kind::solver, "adaboost_mo", {{"code", "random_dense"}, {"code_seed", 5}});
  auto b = test::make<Solver>(Kind::solver, "adaboost_mo", {{"code", "random_dense"}, {"code_seed", 5}});
  auto c = test::make<Solver>(Kind::solver, "adaboost_mo", {{"code", "random_dense"}, {"code_seed", 6}});
  const DenseMatrix M = code_of(*a, pb);
  REQUIRE(M.rows() == 6);
  CHECK(M.cols() == 26);  // ceil(10 log2 6)
  CHECK(M == code_of(*b, pb));
  CHECK(M != code_of(*c, pb));
  CHECK((M.array().abs() == 1.0).all());
  for (Eigen::Index l = 0; l < M.cols(); ++l) CHECK(M.col(l).minCoeff() != M.col(l).maxCoeff());
  for (Eigen::Index k = 0; k < M.rows(); ++k)
    for (Eigen::Index j = k + 1; j < M.rows(); ++j) CHECK(M.row(k) != M.row(j));
  const DenseMatrix I = code_of(*test::make<Solver>(Kind::solver, "adaboost_mo"), pb);
  CHECK(I == 2 * DenseMatrix::Identity(6, 6) - DenseMatrix::Ones(6, 6));
  CHECK_THROWS_WITH_AS(test::make<Solver>(Kind::solver, "adaboost_mo", {{"code_length", 5}}),
                       doctest::Contains("code_length applies to code: random_dense"), std::invalid_argument);
  auto tiny = test::make<Solver>(Kind::solver, "adaboost_mo", {{"code", "random_dense"}, {"code_length", 2}});
  CHECK_THROWS_WITH_AS(code_of(*tiny, pb), doctest::Contains("raise code_length"), std::invalid_argument);
}

TEST_CASE("boosting objective exp_code: loss-based decoding and loss equal brute force") {
  Data data;
  data.train = mo_examples(30, 3, 5, 54);
  data.test = mo_examples(15, 3, 5, 55);
  auto oracle = test::make<WeakLearnerOracle>(Kind::oracle, "stumps");
  auto solver = test::make<Solver>(Kind::solver, "adaboost_mo", {{"code", "random_dense"}, {"code_length", 9}});
  Problem pb;
  pb.data = &data;
  pb.oracle = oracle.get();
  pb.lambda = 1;
  const DenseMatrix M = code_of(*solver, pb);
  auto objective = make_objective(pb, *solver);
  CHECK(objective->describe().at("loss") == "exp_code");
  CHECK(objective->describe().at("code") == solver->objective(pb).params.at("code"));
  const std::vector<Stump> stumps = every_stump(data.train);
  std::mt19937_64 rng(56);
  std::uniform_int_distribution<std::size_t> pick(0, stumps.size() - 1);
  std::normal_distribution<double> g;
  int differs_from_hamming = 0;
  for (int trial = 0; trial < 30; ++trial) {
    INFO("trial " << trial);
    Ensemble e;
    const int T = 1 + trial % 7;
    e.alpha.resize(T, M.cols());
    for (int t = 0; t < T; ++t) {
      e.stumps.push_back(stumps[pick(rng)]);
      for (Eigen::Index l = 0; l < M.cols(); ++l) e.alpha(t, l) = (trial < 25 ? 1.0 : 400.0) * g(rng);
    }
    Scores m;
    score_checkpoint(*objective, nullptr, [&](Iterate& it) { it.ensemble = &e; }, m);
    const DenseMatrix F = code_scores(e, data.train);
    double loss = 0;
    for (Eigen::Index i = 0; i < F.rows(); ++i)
      for (Eigen::Index l = 0; l < F.cols(); ++l) loss += std::exp(-M(data.train.y[i], l) * F(i, l));
    if (trial < 25) {
      CHECK(*m.primal == doctest::Approx(loss / (F.rows() * F.cols())).epsilon(1e-12));
      CHECK(*m.train_error == decoding_error(F, M, data.train.y, false));
      CHECK(*m.test_error == decoding_error(code_scores(e, data.test), M, data.test.y, false));
      differs_from_hamming += decoding_error(F, M, data.train.y, true) != *m.train_error;
    } else {
      // Scores in the hundreds: exp overflows to infinity for every class in the brute force,
      // the core's shifted sums still decode (the error stays a rate, never a tie at infinity).
      CHECK(*m.train_error >= 0.0);
      CHECK(*m.train_error <= 1.0);
    }
  }
  CHECK(differs_from_hamming > 0);  // the test tells loss-based from Hamming decoding

  // A malformed ensemble or code is refused with what was expected.
  Ensemble bad;
  bad.stumps = {Stump{0, 0.0, 1, 0, 0}};
  bad.alpha = DenseMatrix::Zero(1, 5);  // K columns, not L = 9
  Scores m;
  CHECK_THROWS_WITH_AS(score_checkpoint(*objective, nullptr, [&](Iterate& it) { it.ensemble = &bad; }, m),
                       doctest::Contains("expected 1 x L (code columns) = 9"), std::runtime_error);
  struct Named final : Solver {
    ObjectiveSpec spec;
    ObjectiveSpec objective(const Problem&) const override { return spec; }
    void solve(const Problem&, SolverContext&) override {}
  } named;
  named.spec = {"boosting", "exp_code", json::object()};
  CHECK_THROWS_WITH_AS(make_objective(pb, named), doctest::Contains("needs params {code"), std::runtime_error);
  named.spec.params = {{"code", {{1, -1}, {-1, 1}}}};
  CHECK_THROWS_WITH_AS(make_objective(pb, named), doctest::Contains("code of 2 rows; expected 5"), std::runtime_error);
  json rows = json::array();
  for (int k = 0; k < 5; ++k) rows.push_back({1, -1});
  rows[3][1] = 2;
  named.spec.params = {{"code", rows}};
  CHECK_THROWS_WITH_AS(make_objective(pb, named), doctest::Contains("code entry (3, 1) is 2"), std::runtime_error);
  rows[3][1] = 4294967297LL;  // 2^32 + 1: 1 after a narrowing conversion
  named.spec.params = {{"code", rows}};
  CHECK_THROWS_WITH_AS(make_objective(pb, named), doctest::Contains("expected +1 or -1"), std::runtime_error);
  rows[3] = {1};
  named.spec.params = {{"code", rows}};
  CHECK_THROWS_WITH_AS(make_objective(pb, named), doctest::Contains("code row 3 is not a list of 2"),
                       std::runtime_error);
}
