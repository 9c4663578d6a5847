// One conformance test over every plugin found in the build tree (benchopt-style): each
// plugin describes itself, validates its defaults, and runs briefly on a small problem.
#include <cmath>
#include <optional>

#include "cli_support.hpp"
#include "run/recorder.hpp"

using namespace dualgap;
using namespace dualgap::test;

namespace {

bool has_required(const PluginDescription& d) {
  for (auto& p : d.params)
    if (p.default_value.is_null() && !p.optional) return true;
  return false;
}

// Datasets that read files (any path parameter) are exercised by their own tests on real data.
bool reads_files(const PluginDescription& d) {
  for (auto& p : d.params)
    if (p.type == ParamType::path) return true;
  return false;
}

Data small_data(bool sparse) {
  auto ds = make<DatasetPlugin>(Kind::dataset, "synthetic_multiclass",
                                json{{"n", 120}, {"n_test", 60}, {"d", 8}, {"K", 3}, {"sparse", sparse}, {"density", 0.5}});
  DatasetContext ctx;
  ctx.seed = 1;
  return ds->load(ctx);
}

// The oracle a solver's accepted interface is exercised with.
std::string oracle_for(const std::string& iface) {
  if (iface == "structured") return "multiclass";
  if (iface == "block_loss") return "multiclass_sq_hinge";
  if (iface == "weak_learner") return "stumps";
  return "";
}

// Solvers that solve only one kind of structured problem (library peers) run on theirs.
struct Special {
  std::string oracle;
  json oracle_params;
  std::string dataset;
  json data_params;
};
std::optional<Special> special_setup(const std::string& solver) {
  if (solver == "dlib_ssvm")  // dlib's sequence labeling: chains with the count loss
    return Special{"chain_viterbi", {{"loss", "count"}}, "synthetic_chain", {{"n_train", 20}, {"n_test", 5}}};
  return std::nullopt;
}

}  // namespace

TEST_CASE("every plugin describes itself and its defaults validate") {
  auto& reg = plugins();
  REQUIRE(reg.plugins().size() >= 4);
  CHECK(reg.problems().empty());
  for (auto& p : reg.plugins()) {
    const auto& d = *p.description;
    INFO("plugin " << d.name << " at " << p.path);
    CHECK(!d.name.empty());
    CHECK(!d.version.empty());
    CHECK(d.summary.size() > 10);
    for (auto& s : d.params) {
      CHECK(!s.name.empty());
      CHECK(!s.doc.empty());
    }
    if (!has_required(d)) CHECK_NOTHROW(make_params(d.params));
  }
}

TEST_CASE("every dataset generator loads consistent data; every feature transform keeps the rows") {
  auto& reg = plugins();
  for (auto& p : reg.plugins()) {
    if (p.kind() != Kind::dataset || has_required(*p.description) || reads_files(*p.description)) continue;
    INFO("dataset " << p.name());
    auto ds = create_object<DatasetPlugin>(p, make_params(p.description->params));
    DatasetContext ctx;
    ctx.seed = 3;
    Data data = ds->load(ctx);
    CHECK_NOTHROW(data.train.check(p.name()));
    CHECK(data.train.num_examples() > 0);
  }
  Data data = small_data(false);
  for (auto& p : reg.plugins()) {
    if (p.kind() != Kind::features || has_required(*p.description)) continue;
    INFO("features " << p.name());
    auto fg = create_object<FeatureGenerator>(p, make_params(p.description->params));
    fg->fit(data.train, 5);
    FeatureMatrix tr = fg->transform(data.train.X);
    FeatureMatrix te = fg->transform(data.test.X);
    CHECK(tr.rows() == data.train.X.rows());
    CHECK(te.rows() == data.test.X.rows());
    CHECK(tr.cols() == te.cols());
    DenseMatrix dense = tr.to_dense();
    CHECK(dense.allFinite());
  }
}

TEST_CASE("every solver runs briefly with an oracle it accepts and records finite values") {
  auto& reg = plugins();
  int ran = 0;
  for (auto& p : reg.plugins()) {
    if (p.kind() != Kind::solver || has_required(*p.description)) continue;
    INFO("solver " << p.name());
    auto solver = create_object<Solver>(p, make_params(p.description->params));
    const auto accepts = p.description->accepts;
    std::string oracle_name;
    for (auto& a : accepts)
      if (oracle_name.empty() && reg.find(Kind::oracle, oracle_for(a))) oracle_name = oracle_for(a);
    if (!accepts.empty() && oracle_name.empty()) {
      MESSAGE("no oracle plugin for " << p.name() << " in this build; skipped");
      continue;
    }
    const auto special = special_setup(p.name());
    if (special) oracle_name = special->oracle;
    if (special && (!reg.find(Kind::oracle, special->oracle) || !reg.find(Kind::dataset, special->dataset))) {
      MESSAGE("no " << special->oracle << " or " << special->dataset << " in this build; " << p.name() << " skipped");
      continue;
    }
    Data data = special ? [&] {
      DatasetContext dctx;
      dctx.seed = 1;
      return make<DatasetPlugin>(Kind::dataset, special->dataset, special->data_params)->load(dctx);
    }() : small_data(oracle_name == "multiclass_sq_hinge");
    OracleCounters counters;
    std::shared_ptr<Oracle> oracle;
    if (!oracle_name.empty()) {
      oracle = make<Oracle>(Kind::oracle, oracle_name, special ? special->oracle_params : json::object());
      oracle->attach_counters(&counters);
    }
    StopCriteria stop;
    stop.max_passes = 3;
    stop.max_time_s = 10;
    RunRecorder rec(stop, Schedule{}, &counters);
    Problem pb;
    pb.data = &data;
    pb.oracle = oracle.get();
    pb.lambda = 1.0 / static_cast<double>(data.train.num_examples());
    const auto objective = make_objective(pb, *solver);
    rec.set_objective(objective.get());
    SolverContext ctx;
    ctx.recorder = &rec;
    ctx.seed = 11;
    ctx.make_features = [](const std::string& name, const json& params) {
      return make<FeatureGenerator>(Kind::features, name, params.is_null() ? json::object() : params);
    };
    rec.start();
    CHECK_NOTHROW(solver->solve(pb, ctx));
    rec.finish();
    REQUIRE(rec.rows() >= 1);
    CHECK(rec.status() != RunStatus::diverged);
    auto c = rec.curve_json();
    // The core scores every solver: each records a primal (its family's objective, or its own
    // training loss such as AdaBoost.MH's exponential loss) and an error rate.
    CHECK(c["primal"].back().is_number());
    CHECK(c["train_error"].back().is_number());
    if (c["dual"].back().is_number()) CHECK(c["dual"].back().get<double>() <= c["primal"].back().get<double>() + 1e-9);
    // Library solvers in sampling mode (liblinear, dlib_ssvm) run their own inference.
    if (!oracle_name.empty() && rec.sampling_json().is_null()) CHECK(counters.exact_calls + counters.approx_calls > 0);
    ++ran;
  }
  CHECK(ran >= 1);
}
