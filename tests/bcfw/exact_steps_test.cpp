// Tests of bcfw's exact block steps (block_step: exact, simplex_blocks.hpp) and their shrinking
// (shrinking.hpp), against the independent QP solver of bcfw_support.hpp.
#include "bcfw_support.hpp"

using namespace bcfw_test;

namespace {

json exact(int shrinking = 0) { return json{{"block_step", "exact"}, {"shrinking", shrinking}}; }

json with(json p, const json& more) {
  for (const auto& [k, v] : more.items()) p[k] = v;
  return p;
}

}  // namespace

TEST_CASE("one exact block step reaches the block's QP optimum (one example, K up to 50)") {
  // With one example the dual has a single block, so the block's sub-problem is the whole
  // problem: one exact step must land on the optimum that the generic QP solver (FISTA over the
  // simplex of all K labelings) finds.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> lam(0.05, 5.0);
  WeightedMulticlassOracle weighted;
  auto plain = multiclass();
  for (int K : {2, 3, 7, 20, 50}) {
    for (int trial = 0; trial < 3; ++trial) {
      Data data;
      data.train = blobs(1, 1 + trial * 3, K, 100 + static_cast<std::uint64_t>(K * 7 + trial), 1.0);
      data.train.y[0] = trial % K;
      const double lambda = lam(rng);
      StructuredOracle& oracle = trial == 1 ? *plain : static_cast<StructuredOracle&>(weighted);
      CAPTURE(K);
      CAPTURE(trial);
      CAPTURE(lambda);
      const QpSolution qp = solve_dual_qp(data.train, oracle, lambda, 20000);
      REQUIRE(qp.primal - qp.dual < 1e-9);
      // shrinking 3: the step drops the classes the rule proves to be 0 in the block's optimum
      // before projecting; the step must land on the optimum all the same
      for (int shrinking : {0, 3}) {
        CAPTURE(shrinking);
        OracleCounters c;
        auto rec = run_solver("bcfw", data, oracle, lambda, exact(shrinking), 1, 0.0, &c, 1);
        REQUIRE(rec->rows.size() == 2);
        const auto& r = rec->rows.back();
        CHECK(*r.m.dual == doctest::Approx(qp.dual).epsilon(1e-9));
        CHECK(*r.m.primal == doctest::Approx(qp.primal).epsilon(1e-9));
        CHECK(*r.m.primal - *r.m.dual < 1e-9);
        CHECK(c.exact_calls == 1);
      }
    }
  }
}

TEST_CASE("exact block steps reach the QP optimum (dense, sparse, weighted losses and constants)") {
  WeightedMulticlassOracle weighted;
  auto plain = multiclass();
  for (bool sparse : {false, true}) {
    for (StructuredOracle* oracle : {plain.get(), static_cast<StructuredOracle*>(&weighted)}) {
      Data data;
      data.train = blobs(20, 4, 4, 21, 0.8, sparse);
      data.test = blobs(8, 4, 4, 22, 0.8, sparse);
      const double lambda = 1.0 / 20;
      const QpSolution qp = solve_dual_qp(data.train, *oracle, lambda, 30000);
      REQUIRE(qp.primal - qp.dual < 1e-8);
      for (int shrinking : {0, 3}) {
        CAPTURE(sparse);
        CAPTURE(shrinking);
        OracleCounters c;
        auto rec = run_solver("bcfw", data, *oracle, lambda, exact(shrinking), 2000, 1e-10, &c, 1);
        check_primal_ge_dual(*rec);
        // the dual never decreases: every step maximizes over its block
        for (std::size_t r = 1; r < rec->rows.size(); ++r)
          CHECK(*rec->rows[r].m.dual >= *rec->rows[r - 1].m.dual - 1e-13);
        const auto& last = rec->rows.back();
        CHECK(*last.m.primal - *last.m.dual <= 1e-10);
        CHECK(*last.m.primal == doctest::Approx(qp.primal).epsilon(1e-8));
        CHECK(*last.m.dual <= qp.primal + 1e-12);
        CHECK(rec->extra(last, "exact_steps") == 1.0);
      }
    }
  }
}

TEST_CASE("exact block steps need fewer passes than Frank-Wolfe steps to a small gap") {
  // Each exact step maximizes the dual over its block; the FW step only moves towards one
  // vertex. Without shrinking, both visit n blocks per pass.
  Data data;
  data.train = blobs(60, 5, 5, 31, 1.5);
  auto oracle = multiclass();
  OracleCounters c1, c2;
  auto fw = run_solver("bcfw", data, *oracle, 1.0 / 60, json{{"block_step", "fw"}}, 5000, 1e-3, &c1, 1);
  auto ex = run_solver("bcfw", data, *oracle, 1.0 / 60, exact(0), 5000, 1e-3, &c2, 1);
  REQUIRE(*ex->rows.back().m.primal - *ex->rows.back().m.dual <= 1e-3);
  REQUIRE(*fw->rows.back().m.primal - *fw->rows.back().m.dual <= 1e-3);
  CHECK(ex->rows.back().passes * 2 < fw->rows.back().passes);
}

TEST_CASE("shrinking never changes the optimum reached (same primal to 1e-9), visits fewer blocks") {
  Data data;
  data.train = blobs(80, 6, 5, 51, 1.2);
  auto oracle = multiclass();
  const double lambda = 1.0 / 80;
  OracleCounters c0, c1;
  // gap 0: run until the loop's own rule (a pass over all blocks moved none) ends the run.
  auto plain = run_solver("bcfw", data, *oracle, lambda, exact(0), 1e5, 0.0, &c0, 5);
  auto shrunk = run_solver("bcfw", data, *oracle, lambda, exact(4), 1e5, 0.0, &c1, 5);
  REQUIRE(plain->rows.back().passes < 1e5);  // converged by its own rule, not the budget
  REQUIRE(shrunk->rows.back().passes < 1e5);
  const double p0 = *plain->rows.back().m.primal, p1 = *shrunk->rows.back().m.primal;
  CHECK(std::abs(p0 - p1) <= 1e-9 * std::max(1.0, std::abs(p0)));
  CHECK(*plain->rows.back().m.primal - *plain->rows.back().m.dual < 1e-9);
  CHECK(*shrunk->rows.back().m.primal - *shrunk->rows.back().m.dual < 1e-9);
  // passes count blocks visited / n; each visit is one exact oracle call, or one approximate
  // call where the block has dropped classes (class shrinking)
  CHECK(static_cast<double>(c1.exact_calls + c1.approx_calls) == doctest::Approx(shrunk->rows.back().passes * 80));
  CHECK(c1.exact_calls + c1.approx_calls < c0.exact_calls);
  CHECK(c0.approx_calls == 0);
  double most = 0;
  for (const auto& r : shrunk->rows) most = std::max(most, shrunk->extra(r, "shrunk"));
  CHECK(most > 0.5);  // most examples end with phi^{i y_i} held or optimal
}

TEST_CASE("class shrinking never changes the optimum reached, scores fewer classes (dense, sparse, weighted)") {
  WeightedMulticlassOracle weighted;
  auto plain = multiclass();
  for (bool sparse : {false, true}) {
    for (StructuredOracle* oracle : {plain.get(), static_cast<StructuredOracle*>(&weighted)}) {
      CAPTURE(sparse);
      Data data;
      data.train = blobs(90, 8, 12, 57, 1.0, sparse);
      const double lambda = 1.0 / 90;
      OracleCounters c_on, c_off;
      json off = exact(3);
      off["class_shrinking"] = false;
      auto on = run_solver("bcfw", data, *oracle, lambda, exact(3), 1e5, 0.0, &c_on, 5);
      auto all = run_solver("bcfw", data, *oracle, lambda, off, 1e5, 0.0, &c_off, 5);
      REQUIRE(on->rows.back().passes < 1e5);  // both converged by the loop's own rule
      REQUIRE(all->rows.back().passes < 1e5);
      const double p_on = *on->rows.back().m.primal, p_off = *all->rows.back().m.primal;
      CHECK(std::abs(p_on - p_off) <= 1e-9 * std::max(1.0, std::abs(p_off)));
      CHECK(p_on - *on->rows.back().m.dual < 1e-9);
      check_primal_ge_dual(*on);
      for (std::size_t r = 1; r < on->rows.size(); ++r)
        CHECK(*on->rows[r].m.dual >= *on->rows[r - 1].m.dual - 1e-13);
      CHECK(c_on.approx_calls > 0);   // steps on a block's active classes happened
      CHECK(c_off.approx_calls == 0);
      double fewest = 1;
      for (const auto& r : on->rows) fewest = std::min(fewest, on->extra(r, "active_classes"));
      CHECK(fewest < 0.5);  // most of the 12 classes of most blocks dropped at some checkpoint
      CHECK(std::isnan(all->extra(all->rows.back(), "active_classes")));
    }
  }
}

TEST_CASE("exact steps on sparse data (feature-major w, scores by the solver) follow the dense run") {
  Data dense, sparse;
  dense.train = blobs(40, 7, 6, 81, 1.0, false);
  sparse.train = blobs(40, 7, 6, 81, 1.0, true);
  dense.train.X = FeatureMatrix(sparse.train.X.to_dense());  // the same numbers, stored densely
  auto oracle = multiclass();
  OracleCounters cd, cs;
  auto rd = run_solver("bcfw", dense, *oracle, 1.0 / 40, exact(5), 60, 0.0, &cd, 3);
  auto rs = run_solver("bcfw", sparse, *oracle, 1.0 / 40, exact(5), 60, 0.0, &cs, 3);
  REQUIRE(rd->rows.size() == rs->rows.size());
  for (std::size_t r = 0; r < rd->rows.size(); ++r) {
    CHECK(*rs->rows[r].m.primal == doctest::Approx(*rd->rows[r].m.primal).epsilon(1e-10));
    CHECK(*rs->rows[r].m.dual == doctest::Approx(*rd->rows[r].m.dual).epsilon(1e-10));
    CHECK(rs->rows[r].counters.exact_calls == rd->rows[r].counters.exact_calls);
    CHECK(rs->rows[r].counters.approx_calls == rd->rows[r].counters.approx_calls);
  }
  CHECK(rs->rows.back().counters.approx_calls > 0);  // class shrinking's steps ran on both
}

TEST_CASE("dense data with few nonzeros (copied to CSR by the solver) gives the run of the same data stored sparse") {
  Data dense, sparse;
  dense.train = blobs(50, 10, 5, 91, 1.0, false);
  DenseMatrix X = dense.train.X.dense();
  for (Eigen::Index i = 0; i < X.rows(); ++i)  // 20 % nonzero: below the solver's quarter
    for (Eigen::Index j = 0; j < X.cols(); ++j)
      if ((i + j) % 5 != 0) X(i, j) = 0;
  dense.train.X = FeatureMatrix(X);
  sparse.train = dense.train;
  sparse.train.X = FeatureMatrix(SparseMatrix(X.sparseView()));
  auto oracle = multiclass();
  OracleCounters cd, cs;
  auto rd = run_solver("bcfw", dense, *oracle, 1.0 / 50, exact(4), 1e5, 0.0, &cd, 3);
  auto rs = run_solver("bcfw", sparse, *oracle, 1.0 / 50, exact(4), 1e5, 0.0, &cs, 3);
  REQUIRE(rd->rows.size() == rs->rows.size());
  for (std::size_t r = 0; r < rd->rows.size(); ++r) {
    CHECK(*rd->rows[r].m.primal == doctest::Approx(*rs->rows[r].m.primal).epsilon(1e-12));
    CHECK(*rd->rows[r].m.dual == doctest::Approx(*rs->rows[r].m.dual).epsilon(1e-12));
    CHECK(rd->rows[r].counters.approx_calls == rs->rows[r].counters.approx_calls);
  }
  CHECK(rd->rows.back().passes < 1e5);  // converged by the solver's own rule
  CHECK(*rd->rows.back().m.primal - *rd->rows.back().m.dual < 1e-9);
}

TEST_CASE("sparse runs with d = 600 (w's layout changed in tiles of 256 features and a rest at each checkpoint) follow dense ones") {
  Data dense, sparse;
  sparse.train = blobs(40, 600, 6, 23, 1.0, true);
  dense.train = sparse.train;
  dense.train.X = FeatureMatrix(sparse.train.X.to_dense());
  auto oracle = multiclass();
  OracleCounters cd, cs;
  auto rd = run_solver("bcfw", dense, *oracle, 1.0 / 40, exact(3), 20, 0.0, &cd, 1);
  auto rs = run_solver("bcfw", sparse, *oracle, 1.0 / 40, exact(3), 20, 0.0, &cs, 1);
  REQUIRE(rd->rows.size() == rs->rows.size());
  REQUIRE(rd->rows.size() >= 5);
  for (std::size_t r = 0; r < rd->rows.size(); ++r) {
    CHECK(*rs->rows[r].m.primal == doctest::Approx(*rd->rows[r].m.primal).epsilon(1e-10));
    CHECK(*rs->rows[r].m.dual == doctest::Approx(*rd->rows[r].m.dual).epsilon(1e-10));
  }
}

TEST_CASE("K >= 65536 classes (32-bit class order): sparse runs (w transposed at each checkpoint) follow dense ones") {
  // K < 65536 keeps the class order in 16 bits; beyond, the other instantiation runs. Sparse data
  // keep w feature-major (d x K, here 3 x 65536) and transpose it in place at every checkpoint.
  Data dense, sparse;
  sparse.train = blobs(6, 3, 3, 17, 1.0, true);
  sparse.train.num_classes = 65536;  // labels 0..2; the other classes are planes of the dual all the same
  dense.train = sparse.train;
  dense.train.X = FeatureMatrix(sparse.train.X.to_dense());
  auto oracle = multiclass();
  OracleCounters cd, cs;
  auto rd = run_solver("bcfw", dense, *oracle, 1.0 / 6, exact(3), 12, 0.0, &cd, 2);
  auto rs = run_solver("bcfw", sparse, *oracle, 1.0 / 6, exact(3), 12, 0.0, &cs, 2);
  REQUIRE(rd->rows.size() == rs->rows.size());
  REQUIRE(rd->rows.size() >= 6);
  for (std::size_t r = 0; r < rd->rows.size(); ++r) {
    CHECK(*rs->rows[r].m.primal == doctest::Approx(*rd->rows[r].m.primal).epsilon(1e-10));
    CHECK(*rs->rows[r].m.dual == doctest::Approx(*rd->rows[r].m.dual).epsilon(1e-10));
    CHECK(rs->rows[r].counters.exact_calls == rd->rows[r].counters.exact_calls);
  }
  CHECK(*rd->rows.back().m.dual > *rd->rows.front().m.dual);  // the steps moved
}

TEST_CASE("sample: auto is the permutation order below 32768 examples, bit for bit") {
  // Every committed experiment with bcfw has fewer examples: their runs do not change with auto.
  Data data;
  data.train = blobs(300, 4, 4, 29, 1.0);
  auto oracle = multiclass();
  auto a = run_solver("bcfw", data, *oracle, 0.01, with(exact(5), {{"sample", "auto"}}), 30, 0.0, nullptr, 1);
  auto p = run_solver("bcfw", data, *oracle, 0.01, with(exact(5), {{"sample", "permutation"}}), 30, 0.0, nullptr, 1);
  REQUIRE(a->rows.size() == p->rows.size());
  for (std::size_t r = 0; r < a->rows.size(); ++r) {
    CHECK(dualgap::test::same_bits(a->rows[r].m.primal, p->rows[r].m.primal));
    CHECK(dualgap::test::same_bits(a->rows[r].m.dual, p->rows[r].m.dual));
  }
}

TEST_CASE("without shrinking: n exact oracle calls per pass") {
  Data data;
  data.train = blobs(20, 3, 3, 41, 3.0);
  auto oracle = multiclass();
  OracleCounters c;
  auto rec = run_solver("bcfw", data, *oracle, 1.0 / 20, exact(0), 7, 0.0, &c, 1);
  REQUIRE(rec->rows.size() == 8);
  for (std::size_t r = 0; r < rec->rows.size(); ++r)
    CHECK(rec->rows[r].counters.exact_calls == static_cast<std::int64_t>(r * 20));
}

TEST_CASE("block_step auto: exact on multi-class data, the paper's steps otherwise") {
  Data mc;
  mc.train = blobs(12, 3, 3, 61, 1.0);
  auto oracle = multiclass();
  auto uses_exact = [&](const json& p, const Data& data, StructuredOracle& o) {
    OracleCounters c;
    auto rec = run_solver("bcfw", data, o, 0.1, p, 2, 0.0, &c, 1);
    return !std::isnan(rec->extra(rec->rows.back(), "exact_steps"));
  };
  CHECK(uses_exact(json::object(), mc, *oracle));
  CHECK_FALSE(uses_exact(json{{"block_step", "fw"}}, mc, *oracle));
  CHECK_FALSE(uses_exact(json{{"averaging", true}}, mc, *oracle));
  CHECK_FALSE(uses_exact(json{{"multiplane", true}}, mc, *oracle));
  CHECK_FALSE(uses_exact(json{{"threads", 1}, {"batch", 2}}, mc, *oracle));  // mini-batches: FW steps
  Data chain;
  chain.train = sequences(4, 2, 3, 3, 3, 74);
  BruteChainOracle brute;
  CHECK_FALSE(uses_exact(json::object(), chain, brute));
  // asked for explicitly where it does not apply: refused with the reason
  OracleCounters c;
  CHECK_THROWS_WITH(run_solver("bcfw", chain, brute, 0.1, exact(), 2, 0.0, &c, 1),
                    doctest::Contains("one unit per example"));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"block_step", "exact"}, {"multiplane", true}}));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"block_step", "exact"}, {"blocks", "dense"}}));
  CHECK_THROWS_WITH(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"block_step", "exact"}, {"batch", 2}}),
                    doctest::Contains("batch: 1"));
}

TEST_CASE("with shrinking a run stops at exactly max_passes: the pass that reaches the budget is cut there") {
  // Passes that skip shrunk blocks are fractions (18.035, 19.08, ...): the pass after 19.08 would
  // end at 20.535, past a budget of 20, unless it stops at the block where 20 is reached.
  Data data;
  data.train = blobs(200, 10, 4, 61, 1.0);
  auto oracle = multiclass();
  OracleCounters c;
  auto rec = run_solver("bcfw", data, *oracle, 1.0 / 200, exact(4), 20, 0.0, &c, 1);
  REQUIRE(rec->rows.size() >= 2);
  bool fractional = false;
  for (const auto& r : rec->rows) {
    CHECK(r.passes <= 20.0);
    fractional = fractional || r.passes != std::floor(r.passes);
  }
  CHECK(fractional);  // shrinking skipped blocks: the case this is about
  CHECK(rec->rows.back().passes == 20.0);
  CHECK(c.exact_calls + c.approx_calls == 20 * 200);  // one call per block visited
}
