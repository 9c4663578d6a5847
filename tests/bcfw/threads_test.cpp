// Tests of the bcfw solver's mini-batch exact passes on several threads (options batch, threads,
// batch_step; plugins/solver/bcfw/minibatch.hpp): the numbers depend on the batch, never on the
// thread count; counting stays exact; sequential batch steps are the steps of a direct
// implementation; batch steps keep the dual certified and reach the QP optimum.
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
      for (int batch : {2, 3, 5}) {
        for (const char* blocks : {"marginals", "dense"}) {
          if (std::string(blocks) == "dense" && p.oracle->uses_transitions()) continue;
          v["blocks"] = blocks;
          v["batch"] = batch;
          v["batch_step"] = batch == 3 ? "sequential" : "common";
          CAPTURE(p.name);
          CAPTURE(v.dump());
          json one = v, two = v;
          one["threads"] = 1;
          two["threads"] = 2;
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
    const json v{{"threads", 2}, {"batch", 4}, {"multiplane", true}, {"auto_rule", false}, {"M", 2}};
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
      one["threads"] = 1;
      one["batch"] = 1;
      two["threads"] = 2;
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
  // the summed direction: the same O(1/k) rate as BCFW, so BCFW's tolerances of bcfw_test.cpp.
  SUBCASE("multi-class blobs, 2 threads") {
    Data data;
    data.train = blobs(20, 4, 4, 21, 0.8);
    auto oracle = dualgap::test::make<StructuredOracle>(Kind::oracle, "multiclass");
    auto factory = [] { return dualgap::test::make<Oracle>(Kind::oracle, "multiclass"); };
    const double lambda = 1.0 / 20;
    const QpSolution qp = solve_dual_qp(data.train, *oracle, lambda, 30000);
    REQUIRE(qp.primal - qp.dual < 1e-6);
    const std::pair<json, double> variants[] = {
        {json{{"threads", 2}, {"batch", 2}}, 5e-4},
        {json{{"threads", 2}, {"batch", 5}}, 5e-4},
        {json{{"threads", 2}, {"batch", 8}, {"batch_step", "sequential"}}, 5e-4},
        {json{{"threads", 2}, {"batch", 4}, {"averaging", true}}, 5e-4},
        {json{{"threads", 2}, {"batch", 4}, {"multiplane", true}}, 1e-4},
        {json{{"threads", 2}, {"batch", 5}, {"batch_step", "sequential"}}, 5e-4},
        {json{{"threads", 2}, {"batch", 4}, {"batch_step", "sequential"}, {"averaging", true}}, 5e-4},
        {json{{"threads", 2}, {"batch", 4}, {"batch_step", "sequential"}, {"multiplane", true}}, 1e-4},
    };
    for (const auto& [v, tol] : variants) {
      const std::string params = v.dump();  // (clang 14 captures no structured binding)
      CAPTURE(params);
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
        {json{{"batch", 3}, {"batch_step", "sequential"}}, 5e-3},
        {json{{"batch", 3}, {"batch_step", "sequential"}, {"multiplane", true}}, 1e-3},
    };
    for (const auto& [v, tol] : variants) {
      const std::string params = v.dump();  // (clang 14 captures no structured binding)
      CAPTURE(params);
      OracleCounters c;
      auto rec = run_bcfw(data, oracle, lambda, v, 4000, 1e-7, &c, 10);
      check_primal_ge_dual(*rec);
      const double gap = *rec->rows.back().m.primal - *rec->rows.back().m.dual;
      CHECK(gap < tol);
      check_final_against_qp(*rec, qp, 1e-5, 1e-10);
    }
  }
}

TEST_CASE("threads: sequential batch steps are the steps of a direct implementation (stale corners, line search at the current w)") {
  // The reference keeps each block as a dense point phi^i = (phi^i_star, phi^i_circ) and, per
  // batch of the cyclic order, asks the oracle for all corners at the batch's w, then steps the
  // blocks one after another with BCFW's line search at the current w. It shares no code with
  // the solver but the oracle's argmax and the joint features.
  struct Case {
    std::string name;
    Examples ex;
    std::shared_ptr<StructuredOracle> oracle;
    double lambda;
  };
  std::vector<Case> cases;
  cases.push_back({"multiclass", blobs(17, 3, 4, 31, 1.2), dualgap::test::make<StructuredOracle>(Kind::oracle, "multiclass"), 0.05});
  cases.push_back({"chain", sequences(11, 1, 4, 3, 3, 32), dualgap::test::make<StructuredOracle>(Kind::oracle, "chain_viterbi"), 0.1});
  for (auto& cs : cases) {
    for (int batch : {2, 4, 7}) {
      CAPTURE(cs.name);
      CAPTURE(batch);
      const Examples& ex = cs.ex;
      StructuredOracle& oracle = *cs.oracle;
      const std::size_t n = ex.num_examples();
      const double nn = static_cast<double>(n), lambda = cs.lambda;
      const auto dim = static_cast<Eigen::Index>(oracle.dim(static_cast<std::size_t>(ex.num_features()), ex.num_classes));
      auto plane = [&](std::size_t i, const int* y, Vector& star) {  // (phi(x_i,y) - phi(x_i,y_i)) / n, offset / n
        const int* yi = ex.y.data() + ex.unit_begin(i);
        star = Vector::Zero(dim);
        oracle.add_joint_features(ex, i, y, 1.0 / nn, star);
        oracle.add_joint_features(ex, i, yi, -1.0 / nn, star);
        return (oracle.loss(ex, i, y) + oracle.constant(ex, i, y) - oracle.constant(ex, i, yi)) / nn;
      };
      std::vector<Vector> star(n);
      std::vector<double> circ(n);
      Vector phi_star = Vector::Zero(dim);
      double phi_circ = 0;
      for (std::size_t i = 0; i < n; ++i) {  // phi^i = phi^{i y_i}: zero features (exactly, as in the
        const int* yi = ex.y.data() + ex.unit_begin(i);  // solver: w = 0 ties the oracle's labelings)
        star[i] = Vector::Zero(dim), circ[i] = oracle.loss(ex, i, yi) / nn, phi_circ += circ[i];
      }
      const int passes = 3;
      std::vector<double> ref_dual;
      for (int pass = 0; pass < passes; ++pass) {
        for (std::size_t b0 = 0; b0 < n; b0 += static_cast<std::size_t>(batch)) {
          const std::size_t b1 = std::min(n, b0 + static_cast<std::size_t>(batch));
          const Vector w_batch = -phi_star / lambda;
          std::vector<Labeling> corner(b1 - b0);
          std::vector<double> scores;
          for (std::size_t i = b0; i < b1; ++i) oracle.max_oracle(ex, i, w_batch, corner[i - b0], scores);
          for (std::size_t i = b0; i < b1; ++i) {
            Vector hat;
            const double hat_circ = plane(i, corner[i - b0].labels.data(), hat);
            const Vector diff = star[i] - hat;
            const double norm2 = diff.squaredNorm();
            double g = norm2 > 0 ? (diff.dot(phi_star) - lambda * (circ[i] - hat_circ)) / norm2 : 0.0;
            g = std::clamp(g, 0.0, 1.0);
            phi_star -= star[i], phi_circ -= circ[i];
            star[i] = (1 - g) * star[i] + g * hat, circ[i] = (1 - g) * circ[i] + g * hat_circ;
            phi_star += star[i], phi_circ += circ[i];
          }
        }
        ref_dual.push_back(-phi_star.squaredNorm() / (2 * lambda) + phi_circ);
      }
      Data data;
      data.train = ex;
      OracleCounters c;
      auto rec = run_bcfw(data, oracle, lambda,
                          json{{"batch", batch}, {"sample", "cyclic"}, {"blocks", "marginals"}, {"batch_step", "sequential"}},
                          passes, 0.0, &c);
      REQUIRE(rec->rows.size() == static_cast<std::size_t>(passes) + 1);
      for (int pass = 0; pass < passes; ++pass) {
        CAPTURE(pass);
        CHECK(*rec->rows[static_cast<std::size_t>(pass) + 1].m.dual ==
              doctest::Approx(ref_dual[static_cast<std::size_t>(pass)]).epsilon(1e-10));
      }
      // the common step (the default) takes another path (the comparison above can fail)
      OracleCounters c2;
      auto common = run_bcfw(data, oracle, lambda, json{{"batch", batch}, {"sample", "cyclic"}, {"blocks", "marginals"}},
                             passes, 0.0, &c2);
      CHECK(std::abs(*common->rows.back().m.dual - ref_dual.back()) > 1e-8 * std::abs(ref_dual.back()));
    }
  }
}

TEST_CASE("threads: bad values are refused; no oracle factory with threads > 1 is a clear error") {
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", "two"}}));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", 0}}));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", 4097}}));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", "2 threads"}}));
  // The text of an integer is that integer: runs recorded when threads was a string ("1") are
  // re-scored by evaluate from their run.json.
  CHECK_NOTHROW(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", "2"}}));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"batch", -1}}));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"batch_step", "together"}}));
  CHECK_THROWS(dualgap::test::make<Solver>(
      Kind::solver, "bcfw", json{{"multiplane", true}, {"inner_steps", 2}, {"batch", 2}}));
  CHECK_NOTHROW(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", "auto"}}));
  CHECK_NOTHROW(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"threads", 2}}));
  Data data;
  data.train = blobs(10, 3, 3, 5);
  auto oracle = dualgap::test::make<StructuredOracle>(Kind::oracle, "multiclass");
  OracleCounters c;
  try {
    run_bcfw(data, *oracle, 0.1, json{{"threads", 2}}, 3, 0.0, &c, 1);
    FAIL("threads 2 without an oracle factory ran");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("make_oracle") != std::string::npos);
  }
}
