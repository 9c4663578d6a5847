// Helpers of the least-squares-revisited tests: synthetic data, a minimal recorder.
#pragma once

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "dualgap/plugin.hpp"
#include "test_support.hpp"

namespace lsr_test {

using namespace dualgap;

/// K Gaussian blobs in d dimensions (means N(0, sep^2 I), unit noise), n rows, seeded.
inline Examples blobs(int n, int d, int K, double sep, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> N(0, 1);
  DenseMatrix mu(K, d);
  std::mt19937_64 mrng(12345);  // class means shared by every split
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < d; ++j) mu(k, j) = sep * N(mrng);
  Examples e;
  e.num_classes = K;
  DenseMatrix X(n, d);
  for (int i = 0; i < n; ++i) {
    const int y = i % K;
    e.y.push_back(y);
    for (int j = 0; j < d; ++j) X(i, j) = mu(y, j) + N(rng);
  }
  e.X = FeatureMatrix(std::move(X));
  return e;
}

/// Sparse text-like data: class k favours a random set of "words"; nonneg tf values.
inline Examples sparse_docs(int n, int d, int K, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> word(0, d - 1);
  std::uniform_int_distribution<int> own(0, 9);
  Examples e;
  e.num_classes = K;
  std::vector<Eigen::Triplet<double>> t;
  for (int i = 0; i < n; ++i) {
    const int y = i % K;
    e.y.push_back(y);
    for (int w = 0; w < 15; ++w) {
      // half the words from the class' own vocabulary (10 words per class)
      const int j = (w % 2 == 0) ? (y * 10 + own(rng)) % d : word(rng);
      t.emplace_back(i, j, 1.0);
    }
  }
  SparseMatrix S(n, d);
  S.setFromTriplets(t.begin(), t.end());
  e.X = FeatureMatrix(std::move(S));
  return e;
}

using TestRecorder = dualgap::test::MemoryRecorder;

inline std::shared_ptr<FeatureGenerator> features(const std::string& name, const json& params = json::object()) {
  return dualgap::test::make<FeatureGenerator>(Kind::features, name, params);
}

/// Runs a solver plugin on `data` until max_passes (recorder) and returns the recorder.
inline TestRecorder run_solver(const std::string& name, const json& params, const Data& data, double lambda,
                               double max_passes, std::uint64_t seed = 7) {
  auto solver = dualgap::test::make<Solver>(Kind::solver, name, params);
  TestRecorder rec(max_passes);
  Problem pb;
  pb.data = &data;
  pb.lambda = lambda;
  rec.bind(pb, *solver);
  SolverContext ctx;
  ctx.recorder = &rec;
  ctx.seed = seed;
  ctx.make_features = [](const std::string& plugin, const json& p) { return features(plugin, p); };
  solver->solve(pb, ctx);
  return rec;
}

}  // namespace lsr_test
