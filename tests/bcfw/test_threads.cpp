// Tests of the bcfw solver's mini-batch exact passes on several threads (options batch, threads;
// plugins/solver/bcfw/minibatch.hpp): the numbers depend on the batch, never on the thread count;
// counting stays exact; batch steps keep the dual certified and reach the QP optimum.
#include "bcfw_support.hpp"

using namespace bcfw_test;

namespace {

struct TestProblem {
  std::string name;
  Data data;
  std::shared_ptr<StructuredOracle> oracle;
  std::string plugin;
  json oracle_params;
  double lambda;
  std::function<std::shared_ptr<Oracle>()> factory() const {
    return [p = plugin, q = oracle_params] { return dualgap::test::make<Oracle>(Kind::oracle, p, q); };
  }
};

/// Chains with transitions (synthetic_chain, chain_viterbi; marginal tables), a 2 x 3 graph-cut grid with a Potts constant
/// (marginal tables and, forced, dense blocks) and multi-class blobs (one unit per example).
std::vector<TestProblem> problems() {
  std::vector<TestProblem> out;
  {
    auto ds = dualgap::test::make<dualgap::DatasetPlugin>(
        Kind::dataset, "synthetic_chain", json{{"n_train", 15}, {"n_test", 0}, {"K", 5}, {"d", 4}, {"max_length", 7}});
    dualgap::DatasetContext dctx;
    dctx.seed = 91;
    TestProblem p{"chain", ds->load(dctx), nullptr, "chain_viterbi", json::object(), 0.05};
    p.oracle = dualgap::test::make<StructuredOracle>(Kind::oracle, p.plugin);
    out.push_back(std::move(p));
  }
  {
    auto ds = dualgap::test::make<dualgap::DatasetPlugin>(
        Kind::dataset, "synthetic_grid",
        json{{"n_train", 10}, {"n_test", 0}, {"height", 2}, {"width", 3}, {"d", 2}, {"noise", 1.0}});
    dualgap::DatasetContext dctx;
    dctx.seed = 92;
    TestProblem p{"grid", ds->load(dctx), nullptr, "graph_cut", json{{"beta", 0.3}}, 0.1};
    p.oracle = dualgap::test::make<StructuredOracle>(Kind::oracle, p.plugin, p.oracle_params);
    out.push_back(std::move(p));
  }
  {
    TestProblem p{"multiclass", {}, nullptr, "multiclass", json::object(), 1.0 / 30};
    p.data.train = blobs(30, 4, 5, 93, 1.5);
    p.oracle = dualgap::test::make<StructuredOracle>(Kind::oracle, p.plugin);
    out.push_back(std::move(p));
  }
  return out;
}

std::unique_ptr<TestRecorder> run(const TestProblem& p, const json& params, OracleCounters& c, double passes = 20,
                                  std::uint64_t seed = 1) {
  return run_bcfw(p.data, *p.oracle, p.lambda, params, passes, 0.0, &c, 1, seed, p.factory());
}

/// Same rows, bit for bit: primal, dual and the counts at every checkpoint.
void check_identical(const TestRecorder& a, const TestRecorder& b) {
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t r = 0; r < a.rows.size(); ++r) {
    CAPTURE(r);
    CHECK(a.rows[r].passes == b.rows[r].passes);
    CHECK(*a.rows[r].m.primal == *b.rows[r].m.primal);
    CHECK(*a.rows[r].m.dual == *b.rows[r].m.dual);
    CHECK(a.rows[r].counters.exact_calls == b.rows[r].counters.exact_calls);
    CHECK(a.rows[r].counters.approx_calls == b.rows[r].counters.approx_calls);
    CHECK(a.rows[r].counters.eval_calls == b.rows[r].counters.eval_calls);
  }
}

// The variants the batch path runs: BCFW, BCFW-avg, MP-BCFW with fixed approximate passes (no
// clock in the rule), MP-BCFW-avg with small working sets, and uniform sampling (batches end
// before a repeated block).
const json kVariants[] = {
    json::object(),
    json{{"averaging", true}},
    json{{"multiplane", true}, {"auto_rule", false}, {"M", 3}, {"T", 3}},
    json{{"multiplane", true}, {"averaging", true}, {"auto_rule", false}, {"M", 2}, {"N", 2}},
    json{{"sample", "uniform"}},
};

}  // namespace

TEST_CASE("threads: 2 threads run exactly the numbers and counts of 1 thread with the same batch") {
  for (const auto& p : problems()) {
    for (json v : kVariants) {
      for (int batch : {2, 3}) {
        for (const char* blocks : {"marginals", "dense"}) {
          if (std::string(blocks) == "dense" && p.oracle->uses_transitions()) continue;
          v["blocks"] = blocks;
          v["batch"] = batch;
          CAPTURE(p.name);
          CAPTURE(v.dump());
          json one = v, two = v;
          one["threads"] = "1";
          two["threads"] = "2";
          OracleCounters c1, c2;
          auto a = run(p, one, c1);
          auto b = run(p, two, c2);
          check_identical(*a, *b);
          const auto n = static_cast<std::int64_t>(p.data.train.num_examples());
          // exact_calls: n per exact pass, whatever the threads (the workers' counts are merged)
          for (std::size_t r = 0; r < b->rows.size(); ++r)
            CHECK(b->rows[r].counters.exact_calls == static_cast<std::int64_t>(b->rows[r].passes) * n);
          CHECK(c2.exact_calls == c1.exact_calls);
          CHECK(c2.approx_calls == c1.approx_calls);
          CHECK(c2.eval_calls == c1.eval_calls);
          CHECK(c2.oracle_time_s > 0);
          if (v.contains("multiplane")) CHECK(c2.approx_calls > 0);
          check_primal_ge_dual(*b);
          CHECK(*b->rows.back().m.dual > *b->rows.front().m.dual);
        }
      }
    }
  }
}

TEST_CASE("threads: runs with the same seed and thread count are reproducible; the batch changes the path") {
  for (const auto& p : problems()) {
    CAPTURE(p.name);
    const json v{{"threads", "2"}, {"batch", 4}, {"multiplane", true}, {"auto_rule", false}, {"M", 2}};
    OracleCounters c1, c2, c3;
    auto a = run(p, v, c1, 15, 7);
    auto b = run(p, v, c2, 15, 7);
    check_identical(*a, *b);
    // another seed gives another block order, so another path (the comparison above can fail)
    auto c = run(p, v, c3, 15, 8);
    bool differs = false;
    for (std::size_t r = 1; r < a->rows.size() && r < c->rows.size(); ++r) differs |= *a->rows[r].m.dual != *c->rows[r].m.dual;
    CHECK(differs);
  }
}

TEST_CASE("threads: threads 1 batch 1 (and batch 1 with 2 threads) is today's BCFW, bit for bit") {
  for (const auto& p : problems()) {
    for (const json& v : kVariants) {
      CAPTURE(p.name);
      CAPTURE(v.dump());
      json one = v, two = v;
      one["threads"] = "1";
      one["batch"] = 1;
      two["threads"] = "2";
      two["batch"] = 1;
      OracleCounters c0, c1, c2;
      auto base = run(p, v, c0);
      check_identical(*base, *run(p, one, c1));
      check_identical(*base, *run(p, two, c2));
      // and a batch of 2 does take another path
      json batch2 = v;
      batch2["batch"] = 2;
      OracleCounters c3;
      auto other = run(p, batch2, c3);
      bool differs = false;
      for (std::size_t r = 1; r < base->rows.size() && r < other->rows.size(); ++r)
        differs |= *base->rows[r].m.dual != *other->rows[r].m.dual;
      CHECK(differs);
    }
  }
}

TEST_CASE("threads: mini-batch steps reach the optimum of the independent QP, primal >= dual throughout") {
  // Batch steps are Frank-Wolfe steps on the product of simplices with exact line search along
  // the summed direction: the same O(1/k) rate as BCFW, so BCFW's tolerances of test_bcfw.cpp.
  SUBCASE("multi-class blobs, 2 threads") {
    Data data;
    data.train = blobs(20, 4, 4, 21, 0.8);
    auto oracle = dualgap::test::make<StructuredOracle>(Kind::oracle, "multiclass");
    auto factory = [] { return dualgap::test::make<Oracle>(Kind::oracle, "multiclass"); };
    const double lambda = 1.0 / 20;
    const QpSolution qp = solve_dual_qp(data.train, *oracle, lambda, 30000);
    REQUIRE(qp.primal - qp.dual < 1e-6);
    const std::pair<json, double> variants[] = {
        {json{{"threads", "2"}, {"batch", 2}}, 5e-4},
        {json{{"threads", "2"}, {"batch", 5}}, 5e-4},
        {json{{"threads", "2"}, {"batch", 4}, {"averaging", true}}, 5e-4},
        {json{{"threads", "2"}, {"batch", 4}, {"multiplane", true}}, 1e-4},
    };
    for (const auto& [v, tol] : variants) {
      CAPTURE(v.dump());
      OracleCounters c;
      auto rec = run_bcfw(data, *oracle, lambda, v, 5000, 1e-6, &c, 10, 1, factory);
      check_primal_ge_dual(*rec);
      const double gap = *rec->rows.back().m.primal - *rec->rows.back().m.dual;
      CHECK(gap < tol);
      check_final_against_qp(*rec, qp, 1e-5, 1e-12);
    }
  }
  SUBCASE("brute-force chain oracle with transitions and a constant term, batch 3") {
    // Not a plugin (no factory): one thread, batch 3, which is the same path as 3 threads.
    Data data;
    data.train = sequences(10, 1, 3, 3, 3, 61);
    BruteChainOracle oracle;
    const double lambda = 1.0 / 10;
    const QpSolution qp = solve_dual_qp(data.train, oracle, lambda, 30000);
    REQUIRE(qp.primal - qp.dual < 1e-5);
    const std::pair<json, double> variants[] = {
        {json{{"batch", 3}}, 5e-3},
        {json{{"batch", 3}, {"multiplane", true}}, 1e-3},
    };
    for (const auto& [v, tol] : variants) {
      CAPTURE(v.dump());
      OracleCounters c;
      auto rec = run_bcfw(data, oracle, lambda, v, 4000, 1e-7, &c, 10);
      check_primal_ge_dual(*rec);
      const double gap = *rec->rows.back().m.primal - *rec->rows.back().m.dual;
      CHECK(gap < tol);
      check_final_against_qp(*rec, qp, 1e-5, 1e-10);
    }
  }
}

TEST_CASE("threads: bad values are refused; no oracle factory with threads > 1 is a clear error") {
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", "two"}}));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", "0"}}));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"batch", -1}}));
  CHECK_THROWS(dualgap::test::make<Solver>(
      Kind::solver, "bcfw", json{{"multiplane", true}, {"inner_steps", 2}, {"batch", 2}}));
  CHECK_NOTHROW(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", "auto"}}));
  CHECK_NOTHROW(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", 2}}));
  Data data;
  data.train = blobs(10, 3, 3, 5);
  auto oracle = dualgap::test::make<StructuredOracle>(Kind::oracle, "multiclass");
  OracleCounters c;
  try {
    run_bcfw(data, *oracle, 0.1, json{{"threads", "2"}}, 3, 0.0, &c, 1);
    FAIL("threads 2 without an oracle factory ran");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("make_oracle") != std::string::npos);
  }
}
