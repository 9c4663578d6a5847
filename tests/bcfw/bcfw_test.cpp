// Tests of the multiclass oracle and the bcfw solver (BCFW, BCFW-avg, MP-BCFW, MP-BCFW-avg).
#include "bcfw_support.hpp"

using namespace bcfw_test;

namespace {

double final_gap(const TestRecorder& rec) { return *rec.rows.back().m.primal - *rec.rows.back().m.dual; }

double extra(const dualgap::Scores& m, const std::string& name) { return m.column(name).value_or(std::nan("")); }

}  // namespace

TEST_CASE("multiclass oracle equals brute force (dense and sparse, loss-augmented and not)") {
  auto oracle = multiclass();
  for (bool sparse : {false, true}) {
    const Examples ex = blobs(25, 6, 5, 7, 1.0, sparse);
    std::mt19937_64 rng(3);
    std::normal_distribution<double> g(0, 1);
    for (int trial = 0; trial < 10; ++trial) {
      Vector w(6 * 5);
      for (auto& v : w) v = 0.3 * g(rng);
      Labeling lab;
      std::vector<double> S;
      for (std::size_t i = 0; i < ex.num_examples(); ++i) {
        for (bool aug : {true, false}) {
          if (aug) oracle->max_oracle(ex, i, w, lab, S);
          else oracle->decode(ex, i, w, lab, S);
          const Vector x = ex.X.to_dense().row(static_cast<Eigen::Index>(i)).transpose();
          double best = -1e300;
          for (int k = 0; k < 5; ++k) {
            const double s = w.segment(k * 6, 6).dot(x);
            CHECK(S[static_cast<std::size_t>(k)] == doctest::Approx(s).epsilon(1e-12));
            best = std::max(best, s + ((aug && k != ex.y[i]) ? 1.0 : 0.0));
          }
          const int y = lab.labels.at(0);
          const double got = w.segment(y * 6, 6).dot(x) + ((aug && y != ex.y[i]) ? 1.0 : 0.0);
          CHECK(got == doctest::Approx(best).epsilon(1e-12));
          CHECK(lab.loss == (y != ex.y[i] ? 1.0 : 0.0));
          CHECK(lab.constant == 0.0);
        }
      }
    }
  }
}

TEST_CASE("multiclass oracle counts every call, evaluation separately") {
  auto oracle = multiclass();
  const Examples ex = blobs(10, 3, 3, 1);
  OracleCounters c;
  oracle->attach_counters(&c);
  Vector w = Vector::Zero(9);
  Labeling lab;
  std::vector<double> S;
  for (std::size_t i = 0; i < 10; ++i) oracle->max_oracle(ex, i, w, lab, S);
  c.evaluating = true;
  for (std::size_t i = 0; i < 4; ++i) oracle->decode(ex, i, w, lab, S);
  c.evaluating = false;
  oracle->attach_counters(nullptr);
  CHECK(c.exact_calls == 10);
  CHECK(c.eval_calls == 4);
  CHECK(c.approx_calls == 0);
}

TEST_CASE("BCFW on a tiny multiclass problem: gap below 1e-6, primal >= dual at every checkpoint") {
  Data data;
  data.train = blobs(12, 3, 3, 11, 0.8);
  data.test = blobs(9, 3, 3, 12, 0.8);
  auto oracle = multiclass();
  const double lambda = 1.0 / 12;
  OracleCounters c;
  auto rec = run_bcfw(data, *oracle, lambda, json::object(), 200000, 1e-7, &c, 50);
  check_primal_ge_dual(*rec);
  CHECK(final_gap(*rec) < 1e-6);
  // primal and dual against the independent QP solution
  const QpSolution qp = solve_dual_qp(data.train, *oracle, lambda, 20000);
  CHECK(qp.primal - qp.dual < 1e-7);
  CHECK(*rec->rows.back().m.primal == doctest::Approx(qp.primal).epsilon(1e-6));
  CHECK(*rec->rows.back().m.dual <= qp.primal + 1e-10);  // certified lower bound
  CHECK(rec->rows.back().m.test_error);
  CHECK(*rec->rows.back().m.train_error >= 0.0);
}

TEST_CASE("all four variants reach the optimum of the independent QP") {
  Data data;
  data.train = blobs(20, 4, 4, 21, 0.8);
  auto oracle = multiclass();
  const double lambda = 1.0 / 20;
  const QpSolution qp = solve_dual_qp(data.train, *oracle, lambda, 30000);
  REQUIRE(qp.primal - qp.dual < 1e-6);
  // FW without away steps converges as O(1/k): plain variants get a looser gap tolerance
  // than those with many approximate passes over large working sets.
  const std::pair<json, double> variants[] = {
      {json::object(), 5e-4},
      {json{{"averaging", true}}, 5e-4},
      {json{{"multiplane", true}}, 1e-4},
      {json{{"multiplane", true}, {"averaging", true}}, 1e-4},
      {json{{"multiplane", true}, {"auto_rule", false}, {"M", 5}, {"N", 3}, {"T", 2}, {"sample", "cyclic"}}, 5e-5},
      {json{{"sample", "uniform"}}, 1e-3},
  };
  for (const auto& [v, tol] : variants) {
    const std::string params = v.dump();  // (clang 14 captures no structured binding)
    CAPTURE(params);
    OracleCounters c;
    auto rec = run_bcfw(data, *oracle, lambda, v, 5000, 1e-6, &c, 10);
    check_primal_ge_dual(*rec, 1e-12);
    CHECK(final_gap(*rec) < tol);
    // the primal is within the final gap of the optimum
    check_final_against_qp(*rec, qp, 1e-5, 1e-12);
  }
}

TEST_CASE("MP-BCFW needs fewer exact oracle calls than BCFW (paper Fig. 4)") {
  Data data;
  data.train = blobs(60, 5, 5, 31, 1.5);
  auto oracle = multiclass();
  const double lambda = 1.0 / 60;
  OracleCounters c1, c2;
  auto bcfw = run_bcfw(data, *oracle, lambda, json::object(), 5000, 1e-3, &c1, 1);
  auto mp = run_bcfw(data, *oracle, lambda, json{{"multiplane", true}, {"auto_rule", false}, {"M", 10}},
                     5000, 1e-3, &c2, 1);
  REQUIRE(final_gap(*bcfw) <= 1e-3);
  REQUIRE(final_gap(*mp) <= 1e-3);
  CHECK(mp->rows.back().counters.exact_calls < bcfw->rows.back().counters.exact_calls);
  CHECK(c2.approx_calls > 0);
  check_primal_ge_dual(*mp);
}

TEST_CASE("oracle counts: n exact calls per pass, evaluation and approximate calls separate") {
  Data data;
  data.train = blobs(20, 3, 3, 41, 3.0);  // heavily overlapping: no convergence in 7 passes
  data.test = blobs(8, 3, 3, 42, 3.0);
  auto oracle = multiclass();
  for (bool mp : {false, true}) {
    OracleCounters c;
    json p = mp ? json{{"multiplane", true}, {"auto_rule", false}, {"M", 3}} : json::object();
    auto rec = run_bcfw(data, *oracle, 1.0 / 20, p, 7, 0.0, &c, 1);
    REQUIRE(rec->rows.size() == 8);  // passes 0..7
    CHECK(c.exact_calls == 7 * 20);
    // per checkpoint: n loss-augmented calls (primal) + n decodes (train error) + 8 test decodes
    CHECK(c.eval_calls == 8 * (20 + 20 + 8));
    if (mp) {
      double passes = 0;
      for (const auto& r : rec->rows)
        if (r.passes > 0) passes += rec->extra(r, "approx_passes");
      CHECK(passes >= 7);       // at least one approximate pass per outer iteration
      CHECK(passes <= 7 * 3);   // at most M; fewer only when a pass made no progress
      CHECK(c.approx_calls == static_cast<std::int64_t>(passes) * 20);
      CHECK(rec->extra(rec->rows.back(), "working_set") >= 1.0);
    } else {
      CHECK(c.approx_calls == 0);
    }
    for (std::size_t r = 0; r < rec->rows.size(); ++r)
      CHECK(rec->rows[r].counters.exact_calls == static_cast<std::int64_t>(r * 20));
  }
}

TEST_CASE("sparse features give the same run as dense ones") {
  Data dense, sparse;
  dense.train = blobs(25, 6, 4, 51, 1.0, true);
  sparse.train = dense.train;
  sparse.train.X = FeatureMatrix(SparseMatrix(dense.train.X.sparse()));
  dense.train.X = FeatureMatrix(dense.train.X.to_dense());
  auto oracle = multiclass();
  OracleCounters c1, c2;
  auto a = run_bcfw(dense, *oracle, 0.04, json{{"multiplane", true}, {"auto_rule", false}, {"M", 2}}, 20, 0, &c1, 5);
  auto b = run_bcfw(sparse, *oracle, 0.04, json{{"multiplane", true}, {"auto_rule", false}, {"M", 2}}, 20, 0, &c2, 5);
  REQUIRE(a->rows.size() == b->rows.size());
  for (std::size_t r = 0; r < a->rows.size(); ++r) {
    CHECK(*a->rows[r].m.primal == doctest::Approx(*b->rows[r].m.primal).epsilon(1e-10));
    CHECK(*a->rows[r].m.dual == doctest::Approx(*b->rows[r].m.dual).epsilon(1e-10));
  }
}

TEST_CASE("any StructuredOracle: brute-force chain oracle with transitions and a constant term") {
  Data data;
  data.train = sequences(10, 1, 3, 3, 3, 61);
  data.test = sequences(5, 1, 3, 3, 3, 62);
  BruteChainOracle oracle;
  const double lambda = 1.0 / 10;
  const QpSolution qp = solve_dual_qp(data.train, oracle, lambda, 30000);
  REQUIRE(qp.primal - qp.dual < 1e-5);  // FISTA's own certificate
  const std::pair<json, double> variants[] = {
      {json::object(), 5e-3},
      {json{{"averaging", true}}, 5e-3},
      {json{{"multiplane", true}}, 1e-3},
      {json{{"multiplane", true}, {"averaging", true}}, 1e-3},
      // many approximate passes over large working sets: close to a cutting-plane method
      {json{{"multiplane", true}, {"auto_rule", false}, {"M", 50}, {"T", 1000}}, 1e-4},
  };
  for (const auto& [v, tol] : variants) {
    const std::string params = v.dump();  // (clang 14 captures no structured binding)
    CAPTURE(params);
    OracleCounters c;
    auto rec = run_bcfw(data, oracle, lambda, v, 4000, 1e-7, &c, 10);
    check_primal_ge_dual(*rec, 1e-12);
    CHECK(final_gap(*rec) < tol);
    check_final_against_qp(*rec, qp, 1e-5, 1e-10);
  }
}

TEST_CASE("long examples: the dense-change norm gives the same run as the Gram-matrix norm") {
  // 66-72 units per example (the multiclass oracle treats units independently, normalized
  // Hamming loss). gram_max_units = 0 forces the dense path; cyclic order makes runs comparable.
  Data data;
  data.train = sequences(4, 66, 72, 3, 3, 71);
  auto oracle = multiclass();
  OracleCounters c1, c2;
  const json base{{"multiplane", true}, {"auto_rule", false}, {"M", 3}, {"sample", "cyclic"}, {"blocks", "marginals"}};
  json gram = base, dense = base;
  gram["gram_max_units"] = 100;
  dense["gram_max_units"] = 0;
  auto a = run_bcfw(data, *oracle, 0.25, gram, 200, 0, &c1, 20);
  auto b = run_bcfw(data, *oracle, 0.25, dense, 200, 0, &c2, 20);
  check_primal_ge_dual(*a);
  check_primal_ge_dual(*b);
  REQUIRE(a->rows.size() == b->rows.size());
  for (std::size_t r = 0; r < a->rows.size(); ++r) {
    CHECK(*a->rows[r].m.primal == doctest::Approx(*b->rows[r].m.primal).epsilon(1e-9));
    CHECK(*a->rows[r].m.dual == doctest::Approx(*b->rows[r].m.dual).epsilon(1e-9));
  }
  CHECK(*a->rows.back().m.dual > *a->rows[1].m.dual);
}

TEST_CASE("dense blocks give the same runs as marginal tables (all four variants), and auto picks them for long examples") {
  // 30-40 units of 4 features, K = 3 (dim 12): the case dense blocks are for (many units, small
  // w). A dense step uses plane vectors A_i^T e(y) and O(dim) arithmetic, a marginal one the unary
  // score table; same random orders (same seed), fixed approximate passes (no timing rule).
  Data data;
  data.train = sequences(12, 30, 40, 4, 3, 73);
  auto oracle = multiclass();
  const json variants[] = {
      json::object(),
      json{{"averaging", true}},
      json{{"multiplane", true}, {"auto_rule", false}, {"M", 4}, {"T", 3}},
      json{{"multiplane", true}, {"averaging", true}, {"auto_rule", false}, {"M", 4}, {"N", 2}},
  };
  for (const auto& v : variants) {
    CAPTURE(v.dump());
    json mj = v, dj = v, aj = v;
    mj["blocks"] = "marginals";
    dj["blocks"] = "dense";
    OracleCounters c1, c2, c3;
    auto a = run_bcfw(data, *oracle, 0.1, mj, 60, 0, &c1, 10);
    auto b = run_bcfw(data, *oracle, 0.1, dj, 60, 0, &c2, 10);
    auto c = run_bcfw(data, *oracle, 0.1, aj, 60, 0, &c3, 10);
    check_primal_ge_dual(*b);
    REQUIRE(a->rows.size() == b->rows.size());
    for (std::size_t r = 0; r < a->rows.size(); ++r) {
      CHECK(*a->rows[r].m.primal == doctest::Approx(*b->rows[r].m.primal).epsilon(1e-9));
      CHECK(*a->rows[r].m.dual == doctest::Approx(*b->rows[r].m.dual).epsilon(1e-9));
      CHECK(*b->rows[r].m.dual == *c->rows[r].m.dual);  // auto ran the same (dense) path
    }
    CHECK(extra(a->rows.back().m, "dense_blocks") == 0.0);
    CHECK(extra(b->rows.back().m, "dense_blocks") == 1.0);
    CHECK(extra(c->rows.back().m, "dense_blocks") == 1.0);  // auto chose dense blocks
    CHECK(c1.approx_calls == c2.approx_calls);
    CHECK(*b->rows.back().m.dual > *b->rows[1].m.dual);
  }
}

TEST_CASE("approximate calls that compute only the scores they read give the same runs (multiclass, chain)") {
  // approx_scores: support computes, per approximate call, the scores of W_i's labels and of the
  // block's marginal support only (the rest of the table is stale and must not be read); full
  // computes the whole table. Same seed, fixed approximate passes: the same iterates up to rounding.
  Data mc, ch;
  mc.train = blobs(60, 7, 8, 81, 1.2);
  ch.train = sequences(15, 3, 6, 4, 8, 82);
  auto mco = multiclass();
  auto cho = dualgap::test::make<StructuredOracle>(Kind::oracle, "chain_viterbi");
  const std::pair<Data*, StructuredOracle*> problems[] = {{&mc, mco.get()}, {&ch, cho.get()}};
  const json variants[] = {
      json{{"multiplane", true}, {"auto_rule", false}, {"M", 3}},
      json{{"multiplane", true}, {"averaging", true}, {"auto_rule", false}, {"M", 3}, {"T", 2}},
  };
  for (const auto& [data, oracle] : problems) {
    for (const auto& v : variants) {
      CAPTURE(v.dump());
      const auto units = data->train.num_units();  // (clang 14 captures no structured binding)
      CAPTURE(units);
      json sj = v, fj = v;
      sj["approx_scores"] = "support";
      fj["approx_scores"] = "full";
      OracleCounters c1, c2;
      auto a = run_bcfw(*data, *oracle, 0.05, sj, 40, 0, &c1, 5);
      auto b = run_bcfw(*data, *oracle, 0.05, fj, 40, 0, &c2, 5);
      check_primal_ge_dual(*a);
      REQUIRE(a->rows.size() == b->rows.size());
      for (std::size_t r = 0; r < a->rows.size(); ++r) {
        CHECK(*a->rows[r].m.primal == doctest::Approx(*b->rows[r].m.primal).epsilon(1e-9));
        CHECK(*a->rows[r].m.dual == doctest::Approx(*b->rows[r].m.dual).epsilon(1e-9));
      }
      CHECK(c1.approx_calls == c2.approx_calls);
      CHECK(c1.approx_calls > 0);
      const double K = 8, full = extra(b->rows.back().m, "approx_scores");
      CHECK(full >= K);  // whole tables: units x K per call
      // the support path was taken: at most half the table per call, on average well below
      CHECK(extra(a->rows.back().m, "approx_scores") < 0.5 * full);
    }
  }
}

TEST_CASE("graph cut with a Potts constant: dense blocks and marginal tables reach the QP optimum on the same path") {
  // Tiny 2 x 3 grids (64 labelings each: the independent QP enumerates them); the Potts term
  // enters the planes' offsets, so this checks the constants on both block representations.
  auto ds = dualgap::test::make<dualgap::DatasetPlugin>(
      Kind::dataset, "synthetic_grid",
      json{{"n_train", 8}, {"n_test", 0}, {"height", 2}, {"width", 3}, {"d", 2}, {"noise", 1.0}});
  dualgap::DatasetContext dctx;
  dctx.seed = 75;
  Data data = ds->load(dctx);
  auto oracle = dualgap::test::make<StructuredOracle>(Kind::oracle, "graph_cut", json{{"beta", 0.3}});
  const double lambda = 1.0 / 8;
  const QpSolution qp = solve_dual_qp(data.train, *oracle, lambda, 100000);
  REQUIRE(qp.primal - qp.dual < 1e-5);  // FISTA's own certificate
  // (variant, same path expected, gap tolerance): the automatic rule reads the clock, so with it
  // the two representations may take different numbers of approximate passes, and under load as
  // few as one per iteration: it gets BCFW's tolerance (1e-3 failed once in ~20 loaded runs).
  const std::tuple<json, bool, double> variants[] = {
      {json::object(), true, 3e-3},
      {json{{"multiplane", true}, {"auto_rule", false}, {"M", 3}}, true, 1e-3},
      {json{{"multiplane", true}}, false, 3e-3},
  };
  for (const auto& [v, same_path, tol] : variants) {
    const std::string params = v.dump();  // (clang 14 captures no structured binding)
    CAPTURE(params);
    json mj = v, dj = v;
    mj["blocks"] = "marginals";
    dj["blocks"] = "dense";
    OracleCounters c1, c2;
    auto a = run_bcfw(data, *oracle, lambda, mj, 2000, 1e-6, &c1, 10);
    auto b = run_bcfw(data, *oracle, lambda, dj, 2000, 1e-6, &c2, 10);
    check_primal_ge_dual(*b, 1e-12);
    if (same_path) {
      REQUIRE(a->rows.size() == b->rows.size());
      for (std::size_t r = 0; r < a->rows.size(); ++r)
        CHECK(*a->rows[r].m.dual == doctest::Approx(*b->rows[r].m.dual).epsilon(1e-9));
    }
    for (const auto* rec : {a.get(), b.get()}) {
      CHECK(final_gap(*rec) < tol);
      check_final_against_qp(*rec, qp, 1e-5, 1e-10);
    }
  }
}

TEST_CASE("dense blocks are refused with transition features and with inner steps") {
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw",
                                           json{{"multiplane", true}, {"blocks", "dense"}, {"inner_steps", 2}}));
  Data data;
  data.train = sequences(4, 2, 3, 3, 3, 74);
  BruteChainOracle oracle;  // uses transitions
  OracleCounters c;
  CHECK_THROWS_WITH(run_bcfw(data, oracle, 0.1, json{{"blocks", "dense"}}, 5, 0, &c),
                    doctest::Contains("transition"));
}

// ---- options beyond the paper: block-local steps over W_i (inner_steps) and gap sampling ----

TEST_CASE("inner steps and gap sampling reach the optimum of the independent QP (multiclass)") {
  Data data;
  data.train = blobs(20, 4, 4, 21, 0.8);
  auto oracle = multiclass();
  const double lambda = 1.0 / 20;
  const QpSolution qp = solve_dual_qp(data.train, *oracle, lambda, 30000);
  REQUIRE(qp.primal - qp.dual < 1e-6);
  const json mp{{"multiplane", true}};
  auto with = [&](json extra) {
    json p = mp;
    for (auto& [k, v] : extra.items()) p[k] = v;
    return p;
  };
  const std::pair<json, double> variants[] = {
      {with({{"inner_steps", 1}}), 1e-5},
      {with({{"inner_steps", 3}, {"M", 0}}), 1e-5},
      {with({{"inner_steps", 10}, {"M", 0}, {"sample", "gap"}}), 1e-5},
      {with({{"inner_steps", 3}, {"inner", "fw"}, {"M", 0}}), 1e-4},
      {with({{"inner_steps", 3}, {"averaging", true}}), 1e-4},
      {with({{"inner_steps", 3}, {"M", 0}, {"sample", "gap"}, {"gap_refresh", 3}}), 1e-5},
      {with({{"inner_steps", 2}, {"N", 2}, {"T", 1}, {"auto_rule", false}, {"M", 2}}), 1e-5},
      {json{{"sample", "gap"}}, 1e-3},
      {json{{"sample", "gap"}, {"averaging", true}}, 1e-3},
  };
  for (const auto& [v, tol] : variants) {
    const std::string params = v.dump();  // (clang 14 captures no structured binding)
    CAPTURE(params);
    OracleCounters c;
    auto rec = run_bcfw(data, *oracle, lambda, v, 5000, 1e-7, &c, 10);
    check_primal_ge_dual(*rec, 1e-12);
    CHECK(final_gap(*rec) < tol);
    check_final_against_qp(*rec, qp, 1e-6, 1e-12);
    if (v.value("inner_steps", 0) > 0) CHECK(c.approx_calls > 0);
  }
}

TEST_CASE("inner steps: chain oracle with transitions and constants reaches the QP optimum") {
  Data data;
  data.train = sequences(10, 1, 3, 3, 3, 61);
  BruteChainOracle oracle;
  const double lambda = 1.0 / 10;
  const QpSolution qp = solve_dual_qp(data.train, oracle, lambda, 30000);
  REQUIRE(qp.primal - qp.dual < 1e-5);
  const json variants[] = {
      json{{"multiplane", true}, {"inner_steps", 5}},
      json{{"multiplane", true}, {"inner_steps", 5}, {"M", 0}, {"sample", "gap"}},
      json{{"multiplane", true}, {"inner_steps", 5}, {"inner", "fw"}, {"M", 0}},
  };
  for (const auto& v : variants) {
    CAPTURE(v.dump());
    OracleCounters c;
    auto rec = run_bcfw(data, oracle, lambda, v, 4000, 1e-7, &c, 10);
    check_primal_ge_dual(*rec, 1e-12);
    CHECK(final_gap(*rec) < (v.value("inner", std::string("pairwise")) == "fw" ? 1e-3 : 1e-4));
    CHECK(*rec->rows.back().m.primal - qp.dual <= final_gap(*rec) + 1e-5);
    CHECK(*rec->rows.back().m.dual <= qp.primal + 1e-10);
  }
}

TEST_CASE("inner steps: incremental scores (Gram) and scores recomputed from w reach the same optimum") {
  // gram_max_units = 0: long examples have no Gram matrix, so the inner steps recompute the
  // unary scores from w; with Gram matrices they are updated incrementally. Runs are not
  // step-for-step equal: right after an exact line search the two planes of a block tie, and
  // rounding decides which one the next local step takes.
  Data data;
  data.train = sequences(8, 2, 5, 3, 3, 71);
  auto oracle = multiclass();
  for (const char* kind : {"pairwise", "fw"}) {
    CAPTURE(kind);
    OracleCounters c1, c2;
    const json base{{"multiplane", true}, {"M", 2}, {"inner_steps", 4}, {"inner", kind}};
    json gram = base, dense = base;
    gram["gram_max_units"] = 100;
    dense["gram_max_units"] = 0;
    auto a = run_bcfw(data, *oracle, 0.25, gram, 3000, 1e-7, &c1, 10);
    auto b = run_bcfw(data, *oracle, 0.25, dense, 3000, 1e-7, &c2, 10);
    check_primal_ge_dual(*a);
    check_primal_ge_dual(*b);
    CHECK(final_gap(*a) < 1e-4);
    CHECK(final_gap(*b) < 1e-4);
    // each final primal lies above the other run's certified dual
    CHECK(*a->rows.back().m.primal >= *b->rows.back().m.dual - 1e-12);
    CHECK(*b->rows.back().m.primal >= *a->rows.back().m.dual - 1e-12);
    CHECK(std::abs(*a->rows.back().m.primal - *b->rows.back().m.primal) <= final_gap(*a) + final_gap(*b));
  }
}

TEST_CASE("pairwise inner steps need fewer exact passes than BCFW to a small gap") {
  Data data;
  data.train = blobs(60, 5, 5, 31, 1.5);
  auto oracle = multiclass();
  const double lambda = 1.0 / 60;
  OracleCounters c1, c2;
  auto bcfw = run_bcfw(data, *oracle, lambda, json::object(), 20000, 1e-5, &c1, 1);
  auto pw = run_bcfw(data, *oracle, lambda, json{{"multiplane", true}, {"inner_steps", 5}, {"M", 0}},
                     20000, 1e-5, &c2, 1);
  REQUIRE(final_gap(*pw) <= 1e-5);
  check_primal_ge_dual(*pw);
  CHECK(pw->rows.back().counters.exact_calls < bcfw->rows.back().counters.exact_calls);
}

TEST_CASE("inner_steps without working sets is refused") {
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw", json{{"inner_steps", 3}}));
  CHECK_THROWS(dualgap::test::make<Solver>(Kind::solver, "bcfw",
                                           json{{"multiplane", true}, {"N", 0}, {"inner_steps", 3}}));
}

TEST_CASE("chain_viterbi (vectorized max, arguments recovered backwards) equals a plain Viterbi, K up to 26") {
  // The oracle keeps only the max over the previous label (vectorized over the next label,
  // with odd K exercising the loop tails) and recovers the arguments on the way back. Compared
  // by value against a textbook Viterbi written here (ties may pick another labeling of the
  // same value); K = 26 is the OCR size.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g(0, 1);
  for (const char* loss : {"count", "normalized"}) {
    auto o = dualgap::test::make<StructuredOracle>(Kind::oracle, "chain_viterbi", json{{"loss", loss}});
    for (int K : {26, 7, 9}) {
      const int d = 5;
      Examples ex = sequences(12, 1, 9, d, K, 100 + static_cast<std::uint64_t>(K));
      for (double scale : {0.1, 1.0, 5.0}) {
        Vector w(static_cast<Eigen::Index>(o->dim(d, K)));
        for (auto& v : w) v = scale * g(rng);
        const double* T = w.data() + static_cast<std::size_t>(K) * d;
        for (std::size_t i = 0; i < ex.num_examples(); ++i) {
          const int U = ex.units_of(i);
          const int* yi = ex.y.data() + ex.unit_begin(i);
          for (bool aug : {true, false}) {
            Labeling lab;
            std::vector<double> S;
            if (aug) o->max_oracle(ex, i, w, lab, S);
            else o->decode(ex, i, w, lab, S);
            const double per = aug ? (std::string(loss) == "count" ? 1.0 : 1.0 / U) : 0.0;
            auto unit = [&](int u, int k) { return S[static_cast<std::size_t>(u * K + k)] + (k != yi[u] ? per : 0.0); };
            std::vector<double> V(static_cast<std::size_t>(K)), N(static_cast<std::size_t>(K));
            for (int k = 0; k < K; ++k) V[k] = unit(0, k);
            for (int u = 1; u < U; ++u) {
              for (int b = 0; b < K; ++b) {
                double best = -1e300;
                for (int a = 0; a < K; ++a) best = std::max(best, V[a] + T[a * K + b]);
                N[b] = best + unit(u, b);
              }
              V.swap(N);
            }
            const double opt = *std::max_element(V.begin(), V.end());
            double got = 0;
            for (int u = 0; u < U; ++u) got += unit(u, lab.labels[u]);
            for (int u = 0; u + 1 < U; ++u) got += T[lab.labels[u] * K + lab.labels[u + 1]];
            CHECK(got == doctest::Approx(opt).epsilon(1e-12));
          }
        }
      }
    }
  }
}
