// Helpers of the sparse-multiclass tests: generated data and a solver runner.
#pragma once

#include <random>

#include "dualgap/oracles/block_loss.hpp"
#include "dualgap/plugin.hpp"
#include "run/recorder.hpp"
#include "test_support.hpp"

namespace dualgap::sparse_test {

/// n examples, d features, K classes; features sparse with the given density (or dense), labels
/// from a planted model that uses only the first d/2 features, plus 10% label noise.
inline Examples make_examples(int n, int d, int K, double density, unsigned seed, bool dense = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> g(0, 1);
  DenseMatrix Wt = DenseMatrix::Zero(d, K);
  for (int j = 0; j < d / 2; ++j)
    for (int r = 0; r < K; ++r) Wt(j, r) = g(rng);
  DenseMatrix X = DenseMatrix::Zero(n, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j)
      if (u(rng) < density) X(i, j) = g(rng);
  Examples ex;
  ex.num_classes = K;
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd s = X.row(i) * Wt;
    int y;
    s.maxCoeff(&y);
    if (u(rng) < 0.1) y = static_cast<int>(u(rng) * K) % K;
    ex.y.push_back(y);
  }
  if (dense) {
    ex.X = FeatureMatrix(X);
  } else {
    SparseMatrix S = X.sparseView();
    S.makeCompressed();
    ex.X = FeatureMatrix(std::move(S));
  }
  return ex;
}

inline Data make_data(int n, int d, int K, double density, unsigned seed, bool dense = false) {
  Data data;
  data.name = "generated";
  data.train = make_examples(n, d, K, density, seed, dense);
  data.test = make_examples(n / 2, d, K, density, seed + 1000, dense);
  return data;
}

struct RunResult {
  json curve;
  OracleCounters counters;
};

/// Runs a solver plugin on (data, oracle, lambda) with a RunRecorder; returns the curve.
inline RunResult run_solver(const std::string& solver, const json& params, const std::string& oracle,
                            const Data& data, double lambda, StopCriteria stop, Schedule schedule = {}) {
  auto o = test::make<Oracle>(Kind::oracle, oracle);
  auto s = test::make<Solver>(Kind::solver, solver, params);
  RunResult out;
  o->attach_counters(&out.counters);
  RunRecorder rec(stop, schedule, &out.counters);
  Problem pb;
  pb.data = &data;
  pb.oracle = o.get();
  pb.lambda = lambda;
  const auto objective = make_objective(pb, *s);
  rec.set_objective(objective.get());
  SolverContext ctx;
  ctx.recorder = &rec;
  ctx.seed = 7;
  rec.start();
  s->solve(pb, ctx);
  rec.finish();
  out.curve = rec.curve_json();
  return out;
}

inline double last_number(const json& col) {
  for (auto it = col.rbegin(); it != col.rend(); ++it)
    if (it->is_number()) return it->get<double>();
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace dualgap::sparse_test
