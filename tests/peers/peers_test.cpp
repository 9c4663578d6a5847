// Library peers as solver plugins (liblinear, dlib_ssvm) and the core's sampling mode
// (dualgap/sampling.hpp): the recorder's restart semantics, the objective mappings of each
// plugin checked against an independent formula or the library's own reported objective, and
// on real data the same primal as the peer programs these plugins replace (USPS: LIBLINEAR's
// command-line tool; OCR fold 0: the primal computed with the oracle at dlib's w).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/cli_support.hpp"
#include "dualgap/dataset.hpp"
#include "dualgap/oracles/block_loss.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/sampling.hpp"
#include "run/recorder.hpp"
#include "test_support.hpp"

using namespace dualgap;

namespace {

/// A recorder for sampling-mode solvers in-process: keeps every restart's budget, model and
/// scores (the core's objective of the run); never stops the schedule.
struct SampledRecorder : Recorder {
  std::unique_ptr<Objective> objective;
  OracleCounters* counters = nullptr;
  std::vector<double> budgets, passes;
  std::vector<Scores> rows;
  std::vector<Vector> w;
  std::vector<DenseMatrix> W;
  bool open = false;
  void bind(const Problem& pb, const Solver& s) {
    objective = make_objective(pb, s);
    counters = pb.oracle ? pb.oracle->counters() : nullptr;
  }
  bool due(double) const override { return true; }
  void begin_restart(const std::string& budget, double value) override {
    CHECK(budget == "eps");
    CHECK_FALSE(open);
    budgets.push_back(value);
    open = true;
  }
  Action checkpoint(double p, const std::function<void(Iterate&)>& fill) override {
    CHECK(open);
    open = false;
    Scores m;
    score_checkpoint(*objective, counters, [&](Iterate& it) {
      fill(it);
      if (it.w) w.push_back(*it.w);
      if (it.W) W.push_back(*it.W);
    }, m);
    passes.push_back(p);
    rows.push_back(m);
    return Action::proceed;
  }
  bool out_of_budget(double) const override { return false; }
  double solver_time_s() const override { return 0; }
};

Data load_data(const std::string& plugin, const json& params, std::uint64_t seed = 1) {
  auto ds = test::make<DatasetPlugin>(Kind::dataset, plugin, params);
  DatasetContext ctx;
  ctx.seed = seed;
  return ds->load(ctx);
}

/// Runs `solver` on data/oracle in-process; returns the recorder.
std::unique_ptr<SampledRecorder> run_peer(const std::string& solver, const json& params, const Data& data,
                                          const std::string& oracle_plugin, const json& oracle_params,
                                          double lambda, std::shared_ptr<Oracle>* oracle_out = nullptr) {
  auto oracle = test::make<Oracle>(Kind::oracle, oracle_plugin, oracle_params);
  auto s = test::make<Solver>(Kind::solver, solver, params);
  Problem pb;
  pb.data = &data;
  pb.oracle = oracle.get();
  pb.lambda = lambda;
  auto rec = std::make_unique<SampledRecorder>();
  rec->bind(pb, *s);
  SolverContext ctx;
  ctx.recorder = rec.get();
  s->solve(pb, ctx);
  if (oracle_out) *oracle_out = oracle;
  return rec;
}

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

/// 12 significant digits, for the messages that report the measured agreement.
std::string g12(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", x);
  return buf;
}

/// The Crammer-Singer / multiclass SSVM primal written out (not the core's code):
/// lambda/2 ||w||^2 + (1/n) sum_i max_m ([m != y_i] + <w_m - w_{y_i}, x_i>), w[k*d + j].
double multiclass_primal(const Examples& ex, const Vector& w, double lambda) {
  const auto d = ex.num_features();
  const int K = ex.num_classes;
  const std::size_t n = ex.num_examples();
  double risk = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> s(static_cast<std::size_t>(K), 0.0);
    for (int k = 0; k < K; ++k)
      for (Eigen::Index j = 0; j < d; ++j)
        s[k] += w[k * d + j] * (ex.X.is_sparse() ? ex.X.sparse().coeff(static_cast<Eigen::Index>(i), j)
                                                 : ex.X.dense()(static_cast<Eigen::Index>(i), j));
    double best = -1e300;
    for (int k = 0; k < K; ++k) best = std::max(best, (k != ex.y[i] ? 1.0 : 0.0) + s[k] - s[ex.y[i]]);
    risk += best;
  }
  return 0.5 * lambda * w.squaredNorm() + risk / static_cast<double>(n);
}

/// The primal as the former peer program bench/peers/dlib_ocr.cpp computed it at dlib's w:
/// the oracle's loss-augmented argmax and joint features, example by example.
double oracle_primal(StructuredOracle& oracle, const Examples& ex, const Vector& w, double lambda) {
  double risk = 0;
  Labeling out;
  std::vector<double> scores;
  for (std::size_t i = 0; i < ex.num_examples(); ++i) {
    oracle.max_oracle(ex, i, w, out, scores);
    const int* truth = ex.y.data() + ex.unit_begin(i);
    Vector diff = Vector::Zero(w.size());
    oracle.add_joint_features(ex, i, out.labels.data(), 1.0, diff);
    oracle.add_joint_features(ex, i, truth, -1.0, diff);
    risk += out.loss + out.constant - oracle.constant(ex, i, truth) + w.dot(diff);
  }
  return 0.5 * lambda * w.squaredNorm() + risk / static_cast<double>(ex.num_examples());
}

// --- an objective and a fill for the recorder tests ---
struct ConstantObjective : Objective {
  json describe() const override { return {{"family", "test"}}; }
  const char* model_kind() const override { return "w"; }
  void score(const Iterate& it, Scores& out) override { out.primal = (*it.w)[0]; }
};

}  // namespace

TEST_CASE("sampling mode: per-restart rows, budgets in effort order, max_time over the sum of restarts") {
  OracleCounters counters;
  ConstantObjective objective;
  Vector w = Vector::Constant(1, 2.0);
  auto fill = [&](Iterate& it) { it.w = &w; };
  SUBCASE("rows count from their restart; the schedule stops when the restarts' sum reaches max_time") {
    StopCriteria stop;
    stop.max_time_s = 0.25;
    RunRecorder rec(stop, Schedule{}, &counters);
    rec.set_objective(&objective);
    rec.start();
    SolverContext ctx;
    ctx.recorder = &rec;
    int trained = 0;
    run_sampled(ctx, SamplingSchedule::geometric("eps", 1.0, 0.5, 10),
                [&](double) {
                  ++trained;
                  counters.exact_calls += 5;  // as if the library had called the oracle 5 times
                  std::this_thread::sleep_for(std::chrono::milliseconds(100));
                  return 3.0;
                },
                fill);
    rec.finish();
    // restarts of >= 0.1 s each, every one under max_time: only their sum reaches it
    REQUIRE(rec.rows() >= 2);
    CHECK(trained == static_cast<int>(rec.rows()));
    CHECK(rec.status() == RunStatus::budget);
    const json c = rec.curve_json();
    double sum = 0;
    for (std::size_t k = 0; k < rec.rows(); ++k) {
      CHECK(c["budget"][k].get<double>() == std::pow(0.5, static_cast<double>(k)));
      CHECK(c["time"][k].get<double>() >= 0.099);
      sum += c["time"][k].get<double>();
      CHECK(c["passes"][k] == 3.0);
      CHECK(c["oracle_calls"][k] == 5.0);  // counters per restart
    }
    // each row's time is its restart's own: cumulative times would sum to more than the total
    const double total = rec.summary_json()["time"].get<double>();
    CHECK(sum <= total + 1e-9);
    CHECK(sum >= 0.5 * total);
    CHECK(total >= 0.25);
    CHECK(total - c["time"][rec.rows() - 1].get<double>() < 0.25);  // stopped at the first restart past it
    const json s = rec.sampling_json();
    CHECK(s["budget"] == "eps");
    CHECK(s["values"] == c["budget"]);
  }
  SUBCASE("misuse is refused") {
    StopCriteria stop;
    stop.max_passes = 100;
    RunRecorder rec(stop, Schedule{}, &counters);
    rec.set_objective(&objective);
    rec.start();
    rec.begin_restart("eps", 0.5);
    CHECK_THROWS_AS(rec.begin_restart("eps", 0.25), std::logic_error);  // twice without a checkpoint
    rec.checkpoint(1, fill);
    CHECK_THROWS_WITH_AS(rec.begin_restart("eps", 1.0), doctest::Contains("decrease in effort"), std::logic_error);
    CHECK_THROWS_AS(rec.begin_restart("max_iter", 0.1), std::logic_error);  // another budget
    CHECK_THROWS_WITH_AS(rec.checkpoint(2, fill), doctest::Contains("without begin_restart"), std::logic_error);
    rec.begin_restart("eps", 0.5);  // equal is allowed
    CHECK(rec.checkpoint(1, fill) == Action::proceed);
    RunRecorder other(stop, Schedule{}, &counters);
    other.set_objective(&objective);
    other.begin_restart("max_iter", 4);
    other.checkpoint(4, fill);
    CHECK_THROWS_AS(other.begin_restart("max_iter", 2), std::logic_error);  // an iteration cap may not shrink
  }
  SUBCASE("an ordinary recorder refuses sampling") {
    test::MemoryRecorder mem(10);
    CHECK_THROWS_AS(mem.begin_restart("eps", 1), std::logic_error);
  }
}

TEST_CASE("liblinear -s 4: the core's SSVM objective at LIBLINEAR's w, and LIBLINEAR's dual certifies it") {
  const Data data = load_data("synthetic_multiclass", {{"n", 150}, {"n_test", 0}, {"d", 6}, {"K", 4}, {"separation", 1.0}});
  const double lambda = 1.0 / 150;
  auto rec = run_peer("liblinear", {{"eps_first", 1.0}, {"eps_factor", 0.25}, {"restarts", 7}}, data, "multiclass",
                      json::object(), lambda);
  REQUIRE(rec->rows.size() == 7);
  for (std::size_t k = 0; k < rec->rows.size(); ++k) {
    CAPTURE(k);
    CHECK(rec->budgets[k] == doctest::Approx(std::pow(0.25, static_cast<double>(k))));
    if (k > 0) CHECK(rec->budgets[k] <= rec->budgets[k - 1]);
    const Scores& m = rec->rows[k];
    REQUIRE(m.primal);
    REQUIRE(m.dual);
    // the core's primal is the Crammer-Singer objective times lambda (C = 1/(lambda n))
    CHECK(rel(*m.primal, multiclass_primal(data.train, rec->w[k], lambda)) < 1e-12);
    CHECK(*m.dual <= *m.primal + 1e-12);
    CHECK(*m.dual == doctest::Approx(*m.column("liblinear_dual") - lambda * 5e-7).epsilon(1e-9));
    CHECK(rec->passes[k] >= 1);
  }
  // At eps = 0.25^6 the certified gap closes: LIBLINEAR's dual of C = 1/(lambda n) is our dual.
  const Scores& last = rec->rows.back();
  MESSAGE("liblinear -s 4, eps " << rec->budgets.back() << ": primal " << g12(*last.primal) << ", dual "
                                  << g12(*last.dual) << ", first restart's primal " << g12(*rec->rows.front().primal));
  CHECK((*last.primal - *last.dual) / *last.primal < 1e-3);
  CHECK(*last.primal <= *rec->rows.front().primal);
}

TEST_CASE("liblinear -s 5: the core's l1 multitask squared hinge equals LIBLINEAR's own objective") {
  for (int K : {3, 2}) {
    CAPTURE(K);
    const Data data = load_data("synthetic_multiclass",
                                {{"n", 120}, {"n_test", 0}, {"d", 8}, {"K", K}, {"separation", 1.0}, {"sparse", true},
                                 {"density", 0.5}});
    const double lambda = 0.05;
    auto rec = run_peer("liblinear", {{"eps_first", 0.1}, {"eps_factor", 0.1}, {"restarts", 3}}, data,
                        "multitask_sq_hinge", json::object(), lambda);
    REQUIRE(rec->rows.size() == 3);
    for (std::size_t k = 0; k < 3; ++k) {
      CAPTURE(k);
      const Scores& m = rec->rows[k];
      REQUIRE(m.primal);
      // LIBLINEAR prints its objective with 6 decimals: ||w_r||_1 + C sum_i sq hinge, summed over r
      CHECK(rel(*m.primal, *m.column("liblinear_objective")) < 1e-6);
      REQUIRE(m.dual);
      CHECK(*m.dual <= *m.primal + 1e-12);
      CHECK(rec->W[k].rows() == 8);
    }
    MESSAGE("-s 5, K = " << K << ", eps 0.001: core primal " << g12(*rec->rows.back().primal)
                         << ", LIBLINEAR's objective x lambda " << g12(*rec->rows.back().column("liblinear_objective"))
                         << ", core dual " << g12(*rec->rows.back().dual));
    CHECK(*rec->rows.back().primal <= *rec->rows.front().primal + 1e-12);
  }
}

TEST_CASE("an explicit eps list gives one restart per value, in order; a list that grows is refused") {
  const Data data = load_data("synthetic_multiclass", {{"n", 80}, {"n_test", 0}, {"d", 5}, {"K", 3}});
  const std::vector<double> eps = {0.1, 0.05, 0.02, 0.01};
  auto rec = run_peer("liblinear", {{"eps", eps}}, data, "multiclass", json::object(), 1.0 / 80);
  REQUIRE(rec->budgets.size() == eps.size());
  for (std::size_t k = 0; k < eps.size(); ++k) CHECK(rec->budgets[k] == eps[k]);
  CHECK_THROWS_WITH(dualgap::test::make<Solver>(Kind::solver, "liblinear", json{{"eps", {0.1, 0.2}}}),
                    doctest::Contains("decreasing"));
  CHECK_THROWS_WITH(dualgap::test::make<Solver>(Kind::solver, "dlib_ssvm", json{{"eps", {0.1, 0.0}}}),
                    doctest::Contains("decreasing"));
}

TEST_CASE("liblinear refuses objectives it does not solve") {
  const Data data = load_data("synthetic_multiclass", {{"n", 30}, {"n_test", 0}, {"d", 3}, {"K", 3}});
  CHECK_THROWS_WITH(run_peer("liblinear", json::object(), data, "multiclass_sq_hinge", json::object(), 0.1),
                    doctest::Contains("multitask_sq_hinge"));
}

TEST_CASE("dlib_ssvm: the core's primal at dlib's w equals dlib's own objective (chain and graph cut)") {
  SUBCASE("chain: sequence labeling, count loss, C = 1/lambda") {
    const Data data = load_data("synthetic_chain", {{"n_train", 25}, {"n_test", 0}, {"K", 3}, {"d", 4}});
    const double lambda = 1.0 / 25;
    std::shared_ptr<Oracle> oracle;
    auto rec = run_peer("dlib_ssvm", {{"eps_first", 1.0}, {"eps_factor", 0.1}, {"restarts", 3}}, data,
                        "chain_viterbi", {{"loss", "count"}}, lambda, &oracle);
    REQUIRE(rec->rows.size() == 3);
    for (std::size_t k = 0; k < 3; ++k) {
      CAPTURE(k);
      const Scores& m = rec->rows[k];
      CHECK(rel(*m.primal, *m.column("dlib_objective")) < 1e-9);
      CHECK(rel(*m.primal, oracle_primal(dynamic_cast<StructuredOracle&>(*oracle), data.train, rec->w[k], lambda)) <
            1e-12);
    }
    CHECK(*rec->rows.back().primal <= *rec->rows.front().primal + 1e-12);
    CHECK_THROWS_WITH(run_peer("dlib_ssvm", json::object(), data, "chain_viterbi", {{"loss", "normalized"}}, lambda),
                      doctest::Contains("loss: count"));
  }
  SUBCASE("graph cut: graph labeling with the Potts weight pinned to beta, C = 2/lambda") {
    const Data data = load_data("synthetic_grid", {{"n_train", 6}, {"n_test", 0}, {"height", 5}, {"width", 5}});
    const double lambda = 1.0 / 6;
    for (double beta : {1.0, 0.3}) {
      CAPTURE(beta);
      for (const char* loss : {"normalized", "count"}) {
        CAPTURE(loss);
        std::shared_ptr<Oracle> oracle;
        auto rec = run_peer("dlib_ssvm", {{"eps_first", 0.1}, {"eps_factor", 0.1}, {"restarts", 2}, {"threads", 2}},
                            data, "graph_cut", {{"beta", beta}, {"loss", loss}}, lambda, &oracle);
        REQUIRE(rec->rows.size() == 2);
        for (std::size_t k = 0; k < 2; ++k) {
          const Scores& m = rec->rows[k];
          CHECK(rel(*m.primal, *m.column("dlib_objective")) < 1e-9);
          CHECK(rel(*m.primal, oracle_primal(dynamic_cast<StructuredOracle&>(*oracle), data.train, rec->w[k], lambda)) <
                1e-12);
        }
      }
    }
  }
}

TEST_CASE("sampling mode in run.json and in compare's note (dualgap run)") {
  test::TempDir tmp;
  const auto yaml = tmp.path / "peers.yaml";
  test::write_text(yaml, R"(name: peers
data:     {plugin: synthetic_multiclass, n: 80, n_test: 20, d: 5, K: 3}
oracle:   {plugin: multiclass}
problem:  {lambda: 1/n}
solvers:
  - {name: LIBLINEAR, plugin: liblinear, params: {eps_first: 1, eps_factor: 0.5, restarts: 4}}
  - {name: BCFW, plugin: bcfw}
stop:     {max_passes: 5000}
record:   {geometric: 2, first: 1}
repeats:  1
seed:     0
)");
  auto r = test::run_cli("run " + yaml.string() + " --out " + tmp.str() + " --no-report");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  const json j = test::read_json(tmp.path / "peers" / "LIBLINEAR__r0" / "run.json");
  CHECK(j["status"] == "done");
  CHECK(j["sampling"]["budget"] == "eps");
  CHECK(j["sampling"]["values"] == json::array({1.0, 0.5, 0.25, 0.125}));
  CHECK(j["curve"]["budget"] == j["sampling"]["values"]);
  CHECK(j["curve"]["primal"].size() == 4);
  const json b = test::read_json(tmp.path / "peers" / "BCFW__r0" / "run.json");
  CHECK_FALSE(b.contains("sampling"));
  auto c = test::run_cli("compare " + (tmp.path / "peers").string() + " --table");
  REQUIRE_MESSAGE(c.code == 0, c.output);
  CHECK(c.output.find("LIBLINEAR is a sequence of restarts (sampling mode)") != std::string::npos);
}

// ---- real data: the primal of the peer programs these plugins replace, at the same eps ----

TEST_CASE("real: liblinear -s 4 on USPS gives the primal of liblinear-train at the same eps" * dualgap::test::needs_real_data()) {
  const auto train = test::real_data("usps/zip.train.gz");
  Data full = load_data("dense_text", {{"train", train}});
  // the first 400 examples, written as a LIBSVM file that both sides read
  test::TempDir tmp;
  const auto file = tmp.path / "usps400.svm";
  {
    std::ofstream o(file);
    const auto& X = full.train.X.dense();
    char buf[64];
    for (Eigen::Index i = 0; i < 400; ++i) {
      o << full.train.y[static_cast<std::size_t>(i)];
      for (Eigen::Index j = 0; j < X.cols(); ++j)
        if (X(i, j) != 0) {
          std::snprintf(buf, sizeof buf, " %ld:%.17g", static_cast<long>(j + 1), X(i, j));
          o << buf;
        }
      o << "\n";
    }
  }
  Data data = load_data("libsvm", {{"train", file.string()}, {"num_features", 256}});
  REQUIRE(data.train.num_examples() == 400);
  const double lambda = 1.0 / 400;  // C = 1
  auto rec = run_peer("liblinear", {{"eps_first", 0.1}, {"restarts", 1}}, data, "multiclass", json::object(), lambda);
  REQUIRE(rec->rows.size() == 1);
  // LIBLINEAR's command-line tool on the same file (what bench/peers/liblinear_usps.sh ran)
  const auto model = tmp.path / "model";
  REQUIRE(std::system(("liblinear-train -q -s 4 -c 1 -e 0.1 " + file.string() + " " + model.string() + " > /dev/null")
                          .c_str()) == 0);
  std::ifstream in(model);
  std::string line;
  std::vector<int> labels;
  while (std::getline(in, line) && line != "w") {
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "label")
      for (int v; ls >> v;) labels.push_back(v);
  }
  const int K = data.train.num_classes;
  REQUIRE(static_cast<int>(labels.size()) == K);
  // libsvm's class ids: the file's labels 0..9 in order (the plugin maps label text to ids)
  Vector w = Vector::Zero(256 * K);
  for (Eigen::Index j = 0; j < 256; ++j)
    for (int c = 0; c < K; ++c) in >> w[labels[static_cast<std::size_t>(c)] * 256 + j];
  const double cli = multiclass_primal(data.train, w, lambda);
  MESSAGE("USPS 400, eps 0.1: plugin " << g12(*rec->rows[0].primal) << ", liblinear-train " << g12(cli)
                                       << ", core dual " << g12(*rec->rows[0].dual));
  CHECK(rel(*rec->rows[0].primal, cli) < 1e-6);
}

TEST_CASE("real: dlib_ssvm on OCR fold 0 gives the primal of the former dlib_ocr program" * dualgap::test::needs_real_data()) {
  const auto path = test::real_data("ocr/ocr_letters.tsv.gz");
  const Data data = load_data("ocr_letters", {{"path", path}, {"train_folds", {0}}, {"max_train_words", 60},
                                              {"max_test_words", 1}});
  const double lambda = 1.0 / static_cast<double>(data.train.num_examples());
  std::shared_ptr<Oracle> oracle;
  auto rec = run_peer("dlib_ssvm", {{"eps_first", 1.0}, {"eps_factor", 0.5}, {"restarts", 2}}, data, "chain_viterbi",
                      {{"loss", "count"}}, lambda, &oracle);
  REQUIRE(rec->rows.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    const double script = oracle_primal(dynamic_cast<StructuredOracle&>(*oracle), data.train, rec->w[k], lambda);
    MESSAGE("OCR fold 0, 60 words, eps " << rec->budgets[k] << ": core " << g12(*rec->rows[k].primal)
                                         << ", dlib_ocr's " << g12(script) << ", dlib's own x lambda "
                                         << g12(*rec->rows[k].column("dlib_objective")));
    CHECK(rel(*rec->rows[k].primal, script) < 1e-6);
    CHECK(rel(*rec->rows[k].primal, *rec->rows[k].column("dlib_objective")) < 1e-6);
  }
}
