// Throughput of the stumps oracle (best_per_class, best_vote) in examples x features per second,
// beside the bound of one pass over the presorted data: the same gather-accumulate sweep
// (L += W[order[k]] for every sorted position) with no threshold evaluation. The ratio says how
// much the edge/threshold bookkeeping costs on top of the unavoidable pass.
// Sizes: USPS-like (n = 5468, d = 256, K = 10) and PENDIGITS-like (n = 5620, d = 16, K = 10).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "dualgap/oracles/weak_learner.hpp"
#include "plugins/loader.hpp"
#include "experiment/schema.hpp"

using namespace dualgap;

namespace {

struct Fixture {
  Examples ex;
  DenseMatrix W;
  std::shared_ptr<WeakLearnerOracle> oracle;
  std::vector<std::int32_t> order;
  Fixture(int n, int d, int K) {
    std::mt19937_64 rng(1);
    std::normal_distribution<double> g;
    std::uniform_int_distribution<int> q(0, 255);  // quantized like pixel data: many ties
    DenseMatrix X(n, d);
    for (int i = 0; i < n; ++i) {
      ex.y.push_back(i % K);
      for (int f = 0; f < d; ++f) X(i, f) = q(rng) / 255.0;
    }
    ex.X = FeatureMatrix(X);
    ex.num_classes = K;
    W.resize(n, K);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < K; ++c) W(i, c) = g(rng);
    static PluginRegistry reg = [] {
      PluginRegistry r;
      r.scan({DUALGAP_PLUGIN_DIR});
      return r;
    }();
    const auto& p = reg.get(Kind::oracle, "stumps");
    oracle = create_object<WeakLearnerOracle>(p, make_params(p.description->params));
    oracle->prepare(ex);
    order.resize(static_cast<std::size_t>(n) * d);
    std::vector<std::int32_t> idx(n);
    for (int f = 0; f < d; ++f) {
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return X(a, f) < X(b, f); });
      std::copy(idx.begin(), idx.end(), order.begin() + static_cast<std::ptrdiff_t>(f) * n);
    }
  }
};

void report(benchmark::State& st, int n, int d) {
  st.counters["examples_x_features_per_s"] =
      benchmark::Counter(static_cast<double>(n) * d, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_best_per_class(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1)), K = 10;
  Fixture fx(n, d, K);
  std::vector<Stump> out;
  for (auto _ : st) {
    fx.oracle->best_per_class(fx.W, out);
    benchmark::DoNotOptimize(out.data());
  }
  report(st, n, d);
}

void BM_best_vote(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1)), K = 10;
  Fixture fx(n, d, K);
  Stump s;
  std::vector<int> votes;
  for (auto _ : st) {
    fx.oracle->best_vote(fx.W, s, votes);
    benchmark::DoNotOptimize(votes.data());
  }
  report(st, n, d);
}

// The bound: one pass over the presorted indices, accumulating the gathered weight rows.
void BM_one_pass_bound(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1)), K = 10;
  Fixture fx(n, d, K);
  std::vector<double> L(K);
  for (auto _ : st) {
    double acc = 0;
    for (int f = 0; f < d; ++f) {
      std::fill(L.begin(), L.end(), 0.0);
      const std::int32_t* ord = fx.order.data() + static_cast<std::ptrdiff_t>(f) * n;
      for (int k = 0; k < n; ++k) {
        const double* w = fx.W.data() + static_cast<std::ptrdiff_t>(ord[k]) * K;
        for (int c = 0; c < K; ++c) L[c] += w[c];
      }
      acc += L[0];
    }
    benchmark::DoNotOptimize(acc);
  }
  report(st, n, d);
}

}  // namespace

BENCHMARK(BM_best_per_class)->Args({5468, 256})->Args({5620, 16})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_best_vote)->Args({5468, 256})->Args({5620, 16})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_one_pass_bound)->Args({5468, 256})->Args({5620, 16})->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
