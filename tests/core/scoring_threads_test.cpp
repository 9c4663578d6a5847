// Checkpoint scoring on several threads (ScoreOptions::threads): the SSVM objective's scores
// (primal, dual, errors, task losses) and its evaluation counts are the same bit for bit on 1, 2
// and 3 threads, on a multi-class problem and on a chain problem, each of several chunks; the
// sparse multiclass objective's test error likewise. The oracles are the real plugins. And the
// rule that picks the count (scoring_threads): never more than the CPUs the process may use.
#include <cstring>
#include <random>

#include "dualgap/oracles/block_loss.hpp"
#include "dualgap/oracles/structured.hpp"
#include "base/util.hpp"
#include "run/prepare.hpp"
#include "test_support.hpp"

using namespace dualgap;
using namespace dualgap::test;

namespace scoring_threads_test {  // named: the unity build shares a file with other tests

class IdleSolver final : public Solver {
 public:
  void solve(const Problem&, SolverContext&) override {}
};

/// Multi-class data: n examples of one unit, K noisy Gaussian blobs in d dimensions.
Examples blobs(std::size_t n, int d, int K, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  DenseMatrix centers(K, d);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < d; ++j) centers(k, j) = g(rng);
  DenseMatrix X(static_cast<Eigen::Index>(n), d);
  Examples ex;
  ex.num_classes = K;
  for (std::size_t i = 0; i < n; ++i) {
    const int y = static_cast<int>(rng() % static_cast<std::uint64_t>(K));
    ex.y.push_back(y);
    for (int j = 0; j < d; ++j) X(static_cast<Eigen::Index>(i), j) = centers(y, j) + 2.0 * g(rng);
  }
  ex.X = FeatureMatrix(std::move(X));
  return ex;
}

/// Chain data: n sequences of 2-6 units.
Examples chains(std::size_t n, int d, int K, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  Examples ex;
  ex.num_classes = K;
  ex.unit_offset.push_back(0);
  std::vector<std::vector<double>> rows;
  for (std::size_t i = 0; i < n; ++i) {
    const int U = 2 + static_cast<int>(rng() % 5);
    for (int u = 0; u < U; ++u) {
      ex.y.push_back(static_cast<int>(rng() % static_cast<std::uint64_t>(K)));
      std::vector<double> r(static_cast<std::size_t>(d));
      for (auto& v : r) v = g(rng) + 0.5 * ex.y.back();
      rows.push_back(r);
    }
    ex.unit_offset.push_back(static_cast<std::int64_t>(ex.y.size()));
  }
  ex.X = dense_rows(rows, d);
  return ex;
}

bool same_bits(const std::optional<double>& a, const std::optional<double>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || std::memcmp(&*a, &*b, sizeof(double)) == 0;
}

struct Scored {
  Scores scores;
  OracleCounters counters;
};

/// Scores w (and a dual point) with `threads` threads through score_checkpoint, as the recorder does.
Scored score_with(const Data& data, const std::string& oracle_name, int threads, bool factory, const Vector& w) {
  auto oracle = make<StructuredOracle>(Kind::oracle, oracle_name);
  Scored out;
  oracle->attach_counters(&out.counters);
  Problem pb;
  pb.data = &data;
  pb.oracle = oracle.get();
  pb.lambda = 1e-2;
  IdleSolver solver;
  ScoreOptions opt;
  opt.threads = threads;
  if (factory) opt.make_oracle = [oracle_name] { return make<Oracle>(Kind::oracle, oracle_name); };
  auto objective = make_objective(pb, solver, opt);
  const Vector wa = 0.5 * w;
  score_checkpoint(*objective, &out.counters, [&](Iterate& it) {
    it.w = &w;
    it.ssvm_dual = SsvmDualPoint{&wa, -1.0};
  }, out.scores);
  oracle->attach_counters(nullptr);
  return out;
}

void check_thread_counts(const Data& data, const std::string& oracle_name, std::mt19937_64& rng) {
  auto oracle = make<StructuredOracle>(Kind::oracle, oracle_name);
  const auto dim = oracle->dim(static_cast<std::size_t>(data.train.num_features()), data.train.num_classes);
  std::normal_distribution<double> g;
  Vector w(static_cast<Eigen::Index>(dim));
  for (auto& v : w) v = 0.3 * g(rng);
  const Scored one = score_with(data, oracle_name, 1, true, w);
  // n loss-augmented calls (primal), n decodes (train error), one per test example.
  const auto n = static_cast<std::int64_t>(data.train.num_examples());
  const auto n_test = static_cast<std::int64_t>(data.test.num_examples());
  CHECK(one.counters.eval_calls == 2 * n + n_test);
  CHECK(one.counters.exact_calls == 0);
  REQUIRE(one.scores.primal);
  REQUIRE(one.scores.column("train_loss"));
  REQUIRE(one.scores.column("test_loss"));
  for (int threads : {2, 3}) {
    for (bool factory : {true, false}) {  // without a factory: one thread, the same numbers
      INFO(oracle_name << ", " << threads << " threads, factory " << factory);
      const Scored t = score_with(data, oracle_name, threads, factory, w);
      CHECK(same_bits(t.scores.primal, one.scores.primal));
      CHECK(same_bits(t.scores.dual, one.scores.dual));
      CHECK(same_bits(t.scores.train_error, one.scores.train_error));
      CHECK(same_bits(t.scores.test_error, one.scores.test_error));
      CHECK(same_bits(t.scores.column("train_loss"), one.scores.column("train_loss")));
      CHECK(same_bits(t.scores.column("test_loss"), one.scores.column("test_loss")));
      CHECK(t.counters.eval_calls == one.counters.eval_calls);
      CHECK(t.counters.exact_calls == 0);
      CHECK(t.counters.approx_calls == 0);
    }
  }
}

TEST_CASE("ssvm scores on 1, 2 and 3 threads are the same bit for bit, with the same evaluation counts") {
  std::mt19937_64 rng(5);
  SUBCASE("multi-class") {
    Data data;
    data.train = blobs(2600, 7, 5, rng);  // 6 chunks of 512 (the last one short)
    data.test = blobs(1100, 7, 5, rng);   // 3 more
    check_thread_counts(data, "multiclass", rng);
  }
  SUBCASE("chains") {
    Data data;
    data.train = chains(1300, 4, 3, rng);
    data.test = chains(600, 4, 3, rng);
    check_thread_counts(data, "chain_viterbi", rng);
  }
}

TEST_CASE("the sparse multiclass test error is the same on 1, 2 and 3 threads") {
  std::mt19937_64 rng(9);
  Data data;
  data.train = blobs(300, 6, 4, rng);
  data.test = blobs(1700, 6, 4, rng);
  std::normal_distribution<double> g;
  DenseMatrix W(6, 4);
  for (Eigen::Index j = 0; j < W.size(); ++j) W.data()[j] = g(rng);
  std::optional<double> first;
  for (int threads : {1, 2, 3}) {
    auto oracle = make<BlockLossOracle>(Kind::oracle, "multiclass_sq_hinge");
    Problem pb;
    pb.data = &data;
    pb.oracle = oracle.get();
    pb.lambda = 1e-2;
    IdleSolver solver;
    ScoreOptions opt;
    opt.threads = threads;
    auto objective = make_objective(pb, solver, opt);
    Iterate it;
    it.W = &W;
    Scores s;
    objective->score(it, s);
    REQUIRE(s.test_error);
    CHECK(*s.test_error > 0.0);
    if (!first) first = s.test_error;
    CHECK(same_bits(s.test_error, first));
  }
}

TEST_CASE("scoring threads: the run's share of the CPUs, the solver's threads when more, never more than the CPUs") {
  const int cpus = usable_cpus();
  REQUIRE(cpus >= 1);
  CHECK(scoring_threads(json::object(), 1) == cpus);
  CHECK(scoring_threads(json::object(), cpus + 1) == 1);  // a share is at least one thread
  CHECK(scoring_threads(json{{"threads", 1}}, 1) == cpus);  // a solver's 1 does not lower the share
  // bcfw's `auto` (the machine's hardware threads) or a count written: at most the CPUs this
  // process may use, whatever the solver was told.
  CHECK(scoring_threads(json{{"threads", 4096}}, 1) == cpus);
  CHECK(scoring_threads(json{{"threads", 4096}}, 1000) == cpus);
  CHECK(scoring_threads(json{{"threads", cpus + 7}}, cpus + 1) == cpus);
  // Within the CPUs, a solver given more threads than the share scores on them.
  CHECK(scoring_threads(json{{"threads", cpus}}, cpus + 1) == cpus);
}

}  // namespace scoring_threads_test
