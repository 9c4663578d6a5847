// Micro-benchmarks on USPS-sized dense data (n = 7291, d = 256, K = 10, generated):
//   * stream:        a streaming read of 64 MB (the memory-bandwidth bound bytes/s is compared to)
//   * oracle_call:   one multiclass max-oracle call (score table x_i W^T + argmax)
//   * exact_step:    one exact BCFW step (oracle call + step on the marginal table + w update)
//   * approx_step:   one approximate step (max over a working set of 2 planes + step), with the
//                    full score table (Arg 0) or only the scores the step reads (Arg 1)
// Bytes per call: the row x_i (d doubles) and w (K d doubles) are read; a step also writes the
// touched class blocks of w (2 blocks of d doubles typically). Google Benchmark reports
// bytes_per_second from SetBytesProcessed; compare it to the stream figure. w (20 KB) lives in
// L1/L2, so a call is compute-bound, not bandwidth-bound: the ratio says how far from the
// bandwidth bound the kernel is, not that it should reach it.
#include <benchmark/benchmark.h>

#include <random>

#include "dense_blocks.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "plugins/loader.hpp"
#include "experiment/schema.hpp"
#include "marginal_blocks.hpp"
#include "support_scores.hpp"
#include "working_set.hpp"

namespace {

using namespace dualgap;

std::shared_ptr<StructuredOracle> multiclass_oracle() {
  static PluginRegistry reg = [] {
    PluginRegistry r;
    r.scan({DUALGAP_PLUGIN_DIR});
    return r;
  }();
  const auto& p = reg.get(Kind::oracle, "multiclass");
  return create_object<StructuredOracle>(p, make_params(p.description->params));
}

struct Fixture {
  Examples ex;
  std::shared_ptr<StructuredOracle> oracle;
  static constexpr int n = 7291, d = 256, K = 10;
  Fixture() {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u(-1, 1);
    DenseMatrix X(n, d);
    for (int i = 0; i < n; ++i) {
      ex.y.push_back(i % K);
      for (int j = 0; j < d; ++j) X(i, j) = u(rng);
    }
    ex.X = FeatureMatrix(std::move(X));
    ex.num_classes = K;
    oracle = multiclass_oracle();
  }
};

Fixture& fx() {
  static Fixture f;
  return f;
}

constexpr double kCallBytes = 8.0 * (Fixture::d + Fixture::K * Fixture::d);  // x_i and w read
constexpr double kStepBytes = kCallBytes + 8.0 * 2 * 2 * Fixture::d;         // + 2 blocks of w r/w

void stream(benchmark::State& state) {
  std::vector<double> a(8 << 20, 1.0);  // 64 MB
  for (auto _ : state) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::size_t i = 0; i < a.size(); i += 4) s0 += a[i], s1 += a[i + 1], s2 += a[i + 2], s3 += a[i + 3];
    benchmark::DoNotOptimize(s0 + s1 + s2 + s3);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(a.size() * 8));
}
BENCHMARK(stream)->Unit(benchmark::kMillisecond);

void oracle_call(benchmark::State& state) {
  auto& f = fx();
  Vector w = Vector::Random(f.K * f.d);
  Labeling lab;
  std::vector<double> S;
  std::size_t i = 0;
  for (auto _ : state) {
    f.oracle->max_oracle(f.ex, i, w, lab, S);
    benchmark::DoNotOptimize(lab.labels.data());
    if (++i == static_cast<std::size_t>(f.n)) i = 0;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kCallBytes));
}
BENCHMARK(oracle_call);

void exact_step(benchmark::State& state) {
  auto& f = fx();
  dualgap_bcfw::MarginalBlocks st(f.ex, *f.oracle, 1.0 / f.n, 64);
  Labeling lab;
  std::vector<double> S;
  std::size_t i = 0;
  for (auto _ : state) {
    f.oracle->max_oracle(f.ex, i, st.w, lab, S);
    st.step(i, lab.labels.data(), lab.loss + lab.constant - st.truth_constant(i), S.data());
    if (++i == static_cast<std::size_t>(f.n)) i = 0;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kStepBytes));
}
BENCHMARK(exact_step);

void approx_step(benchmark::State& state) {
  auto& f = fx();
  dualgap_bcfw::MarginalBlocks st(f.ex, *f.oracle, 1.0 / f.n, 64);
  dualgap_bcfw::WorkingSets ws(f.ex);
  Labeling lab;
  std::vector<double> S;
  // one exact pass fills the working sets (ground truth + one oracle plane each)
  for (std::size_t i = 0; i < static_cast<std::size_t>(f.n); ++i) {
    ws.add(i, f.ex.y.data() + i, 0.0, 0, 1000);
    f.oracle->max_oracle(f.ex, i, st.w, lab, S);
    const double off = lab.loss + lab.constant - st.truth_constant(i);
    st.step(i, lab.labels.data(), off, S.data());
    ws.add(i, lab.labels.data(), off, 1, 1000);
  }
  const bool support = state.range(0) == 1;
  dualgap_bcfw::SupportScores sup;
  std::size_t i = 0;
  for (auto _ : state) {
    std::size_t best;
    {
      Oracle::CallScope scope(*f.oracle, CallKind::approximate);
      if (!support || !sup.fill(f.ex, st, ws, i, S)) StructuredOracle::unary_scores(f.ex, i, st.w, S);
      best = ws.argmax(st, i, S.data());
    }
    st.step(i, ws.labels(i, best), ws.offset(i, best), S.data());
    if (++i == static_cast<std::size_t>(f.n)) i = 0;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kStepBytes));
  state.counters["working_set"] = ws.mean_size();
  state.counters["scores_per_call"] = support ? sup.mean_computed() : Fixture::K;
  state.SetLabel(support ? "support scores" : "full score table");
}
BENCHMARK(approx_step)->Arg(0)->Arg(1);

// Horse-shaped data (Weizmann horse, SLIC step 12): 100 examples of 700 units x 41 features,
// K = 2 (dim 82), working sets of 2 planes (the truth and a random labeling). One approximate
// step with marginal tables (unary score table of the example + step over the touched units)
// against one with dense blocks (2 dot products of length 82 + an O(dim) step): the cost an
// approximate pass pays per example on the graph-cut task.
struct GraphFixture {
  Examples ex;
  std::shared_ptr<StructuredOracle> oracle;
  static constexpr int n = 100, U = 700, d = 41, K = 2;
  GraphFixture() {
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> u(-1, 1);
    DenseMatrix X(static_cast<Eigen::Index>(n) * U, d);
    for (int r = 0; r < n * U; ++r) {
      ex.y.push_back(u(rng) > 0 ? 1 : 0);
      for (int j = 0; j < d; ++j) X(r, j) = u(rng);
    }
    ex.X = FeatureMatrix(std::move(X));
    ex.num_classes = K;
    for (int i = 0; i <= n; ++i) ex.unit_offset.push_back(static_cast<std::int64_t>(i) * U);
    oracle = multiclass_oracle();
  }
};

GraphFixture& gfx() {
  static GraphFixture f;
  return f;
}

template <class Storage>
void graph_approx_run(benchmark::State& state, GraphFixture& f, Storage& st) {
  dualgap_bcfw::WorkingSets ws(f.ex);
  const auto dim = static_cast<std::size_t>(st.w.size());
  if constexpr (Storage::kDense) ws.keep_vectors(dim);
  std::mt19937_64 rng(3);
  std::vector<int> y(f.U);
  std::vector<double> S;
  auto plane = [&](std::size_t i, const int* lab) -> const double* {
    if constexpr (Storage::kDense) return st.plane_of(i, lab);
    else return nullptr;
  };
  for (std::size_t i = 0; i < static_cast<std::size_t>(f.n); ++i) {
    const int* yi = f.ex.y.data() + f.ex.unit_begin(i);
    ws.add(i, yi, 0.0, 0, 1000, plane(i, yi));
    for (int& v : y) v = static_cast<int>(rng() & 1);
    ws.add(i, y.data(), 0.5, 0, 1000, plane(i, y.data()));
  }
  std::size_t i = 0;
  for (auto _ : state) {
    std::size_t best;
    if constexpr (Storage::kDense) {
      best = ws.argmax_dense(i, st.w.data());
      st.step(i, ws.vec(i, best), ws.offset(i, best));
    } else {
      StructuredOracle::unary_scores(f.ex, i, st.w, S);
      best = ws.argmax(st, i, S.data());
      st.step(i, ws.labels(i, best), ws.offset(i, best), S.data());
    }
    if (++i == static_cast<std::size_t>(f.n)) i = 0;
  }
  state.SetLabel(Storage::kDense ? "dense blocks" : "marginal tables");
}

void graph_approx_step(benchmark::State& state) {
  auto& f = gfx();
  if (state.range(0) == 1) {
    dualgap_bcfw::DenseBlocks st(f.ex, *f.oracle, 1.0 / f.n);
    graph_approx_run(state, f, st);
  } else {
    dualgap_bcfw::MarginalBlocks st(f.ex, *f.oracle, 1.0 / f.n, 64);
    graph_approx_run(state, f, st);
  }
}
BENCHMARK(graph_approx_step)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
