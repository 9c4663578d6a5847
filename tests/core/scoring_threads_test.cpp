// Checkpoint scoring on several threads (ScoreOptions::threads): the SSVM objective's scores
// (primal, dual, errors, task losses) and its evaluation counts are the same bit for bit on 1, 2
// and 3 threads, on a multi-class problem and on a chain problem, each of several chunks; the
// sparse multiclass objective's test error likewise; each thread beyond the first has its oracle
// from the run's factory. The oracles are the real plugins. And the rule that picks the count
// (scoring_threads): never more than the CPUs the process may use.
#include "bcfw/bcfw_support.hpp"
#include "dualgap/oracles/block_loss.hpp"
#include "run/prepare.hpp"
#include "base/util.hpp"

using namespace dualgap;
using namespace dualgap::test;

namespace scoring_threads_test {  // named: the unity build shares a file with other tests

using bcfw_test::blobs;
using bcfw_test::sequences;

/// The objective of `pb` scored on `threads` threads; with `oracle_name`, a factory of that
/// oracle plugin that counts the objects it makes in `made`.
std::unique_ptr<Objective> objective_on(const Problem& pb, IdleSolver& solver, int threads,
                                        const std::string& oracle_name = "", int* made = nullptr) {
  ScoreOptions opt;
  opt.threads = threads;
  if (!oracle_name.empty())
    opt.make_oracle = [oracle_name, made] {
      ++*made;
      return make<Oracle>(Kind::oracle, oracle_name);
    };
  return make_objective(pb, solver, opt);
}

/// A problem on `data` with the oracle `oracle` and lambda 1e-2.
Problem problem_of(const Data& data, Oracle& oracle) {
  Problem pb;
  pb.data = &data;
  pb.oracle = &oracle;
  pb.lambda = 1e-2;
  return pb;
}

struct Scored {
  Scores scores;
  OracleCounters counters;
};

/// Scores w (and a dual point) with `threads` threads through score_checkpoint, as the recorder
/// does; with `factory`, the objective is given the oracle's factory and `made` counts its calls.
Scored score_with(const Data& data, const std::string& oracle_name, int threads, bool factory, const Vector& w,
                  int& made) {
  auto oracle = make<StructuredOracle>(Kind::oracle, oracle_name);
  Scored out;
  oracle->attach_counters(&out.counters);
  const Problem pb = problem_of(data, *oracle);
  IdleSolver solver;
  made = 0;
  auto objective = objective_on(pb, solver, threads, factory ? oracle_name : "", &made);
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
  int made = 0;
  const Scored one = score_with(data, oracle_name, 1, true, w, made);
  CHECK(made == 0);  // one thread: the run's own oracle
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
      const Scored t = score_with(data, oracle_name, threads, factory, w, made);
      // One oracle object per thread beyond the first: the objective scored on `threads`
      // threads (with fewer chunks than threads, or no factory, it would have scored on one).
      CHECK(made == (factory ? threads - 1 : 0));
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
    data.train = blobs(2600, 7, 5, 51, 2.0);  // 6 chunks of 512 (the last one short)
    data.test = blobs(1100, 7, 5, 52, 2.0);   // 3 more
    check_thread_counts(data, "multiclass", rng);
  }
  SUBCASE("chains") {
    Data data;
    data.train = sequences(1300, 2, 6, 4, 3, 53);  // 3 chunks
    data.test = sequences(600, 2, 6, 4, 3, 54);    // 2 more
    check_thread_counts(data, "chain_viterbi", rng);
  }
}

TEST_CASE("the sparse multiclass test error is the same on 1, 2 and 3 threads") {
  std::mt19937_64 rng(9);
  Data data;
  data.train = blobs(300, 6, 4, 91, 2.0);
  data.test = blobs(1700, 6, 4, 92, 2.0);  // 4 chunks
  std::normal_distribution<double> g;
  DenseMatrix W(6, 4);
  for (Eigen::Index j = 0; j < W.size(); ++j) W.data()[j] = g(rng);
  std::optional<double> first;
  for (int threads : {1, 2, 3}) {
    auto oracle = make<BlockLossOracle>(Kind::oracle, "multiclass_sq_hinge");
    const Problem pb = problem_of(data, *oracle);
    IdleSolver solver;
    auto objective = objective_on(pb, solver, threads);
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
