#include "run/prepare.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

#include "data/pipeline.hpp"
#include "dualgap/parse.hpp"
#include "experiment/schema.hpp"
#include "base/util.hpp"

namespace dualgap {

void apply_features_step(const json& cfg, std::size_t index, const PluginRegistry& reg, Data& data,
                         const Locate& locate) {
  const json& f = cfg["features"][index];
  const std::string pointer = "/features/" + std::to_string(index);
  const DataShape shape = data_shape(data.train, data.source);
  check_data_rules(cfg, pointer, shape, reg, locate);
  const LoadedPlugin& fp = reg.get(Kind::features, f["plugin"]);
  auto fg = create_object<FeatureGenerator>(
      fp, Params(resolve_expressions(fp.description->params, f["params"], expression_vars(shape))));
  fg->fit(data.train, derive_seed(cfg["seeds"]["features"].get<std::uint64_t>(), "features", index));
  data.train.X = fg->transform(data.train.X);
  if (data.test.num_units() > 0) data.test.X = fg->transform(data.test.X);
}

int scoring_threads(const json& solver_params, int jobs) {
  const int cpus = usable_cpus();
  const int share = std::max(1, cpus / std::max(1, jobs));
  // The solver's count is bounded by the solver's own schema (bcfw: 1..4096), not by this
  // process: its `auto` is the machine's hardware threads, which an affinity mask may cut down.
  if (solver_params.is_object() && solver_params.contains("threads") && solver_params["threads"].is_number_integer())
    return std::max(share, std::min(solver_params["threads"].get<int>(), cpus));
  return share;
}

void prepare_run(const json& cfg, const PluginRegistry& reg, const std::string& cache_dir, OracleCounters* counters,
                 PreparedRun& out, const Locate& locate) {
  using Clock = std::chrono::steady_clock;
  // data
  auto t0 = Clock::now();
  const LoadedPlugin& dp = reg.get(Kind::dataset, cfg["data"]["plugin"]);
  DatasetContext dctx;
  dctx.seed = cfg["seeds"]["data"].get<std::uint64_t>();
  dctx.cache_dir = cache_dir;
  json& info = out.info;
  const double validation = cfg["data"].contains("validation") ? cfg["data"]["validation"].get<double>() : 0.0;
  out.data = load_data(dp, cfg["data"]["params"], dctx, validation, &info);
  Data& data = out.data;
  data.train.check(dp.path + " (train split)");
  if (data.test.num_units() > 0) data.test.check(dp.path + " (test split)");
  info["load_time"] = std::chrono::duration<double>(Clock::now() - t0).count();
  // feature chain, fitted on train only
  t0 = Clock::now();
  for (std::size_t f = 0; f < cfg["features"].size(); ++f) apply_features_step(cfg, f, reg, data, locate);
  info["features_time"] = std::chrono::duration<double>(Clock::now() - t0).count();
  // The oracle's and the solver's rules against the data they are given, before either is made.
  const DataShape shape = data_shape(data.train, data.source);
  out.vars = expression_vars(shape);
  info["train"] = {{"examples", data.train.num_examples()}, {"units", data.train.num_units()},
                   {"features", data.train.num_features()}, {"classes", data.train.num_classes},
                   {"nonzeros", data.train.X.nonzeros()}, {"sparse", data.train.X.is_sparse()}};
  info["test"] = {{"examples", data.test.num_examples()}, {"units", data.test.num_units()}};
  info["name"] = data.name;
  info["source"] = data.source;
  if (!cfg["oracle"].is_null()) check_data_rules(cfg, "/oracle", shape, reg, locate);
  check_data_rules(cfg, "/solver", shape, reg, locate);

  // problem
  Problem& pb = out.problem;
  pb.data = &data;
  const json problem = resolve_expressions(
      {{"lambda", ParamType::real, json("1/n"), 0.0, {}, {}, ""}}, cfg["problem"], out.vars);
  pb.lambda = problem["lambda"].get<double>();
  pb.params = problem;

  if (!cfg["oracle"].is_null()) {
    const LoadedPlugin& op = reg.get(Kind::oracle, cfg["oracle"]["plugin"]);
    json params = resolve_expressions(op.description->params, cfg["oracle"]["params"], out.vars);
    out.oracle = create_object<Oracle>(op, Params(params));
    out.make_oracle = [op, params] { return create_object<Oracle>(op, Params(params)); };
    out.oracle->attach_counters(counters);
    pb.oracle = out.oracle.get();
  }
  const LoadedPlugin& sp = reg.get(Kind::solver, cfg["solver"]["plugin"]);
  out.solver_params = resolve_expressions(sp.description->params, cfg["solver"]["params"], out.vars);
  out.solver = create_object<Solver>(sp, Params(out.solver_params));
}

}  // namespace dualgap
