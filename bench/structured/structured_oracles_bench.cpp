// Micro-benchmarks of one structured max-oracle call (score table + argmax, through the
// counted public entry point), on instances the size of the paper's tasks:
//   chain_viterbi   OCR-like word: U = 8 letters, d = 128, K = 26 (score table U*d*K MACs, Viterbi U*K^2)
//   graph_cut       horse-like SLIC graph: 20 x 20 grid of superpixels, d = 41, K = 2
//   potts_expansion the same graph with K = 4 labels (alpha-expansion, one cut per label and sweep)
// Each reports bytes/s over the bytes the call must read (the example's feature rows plus w);
// BM_stream_read gives the machine's sequential-read bandwidth, the bound those bytes/s are
// compared to (an oracle far below it is compute-bound: Viterbi / max-flow, not memory).
#include <benchmark/benchmark.h>

#include <numeric>
#include <random>

#include "dualgap/dataset.hpp"
#include "dualgap/oracles/structured.hpp"
#include "plugins/loader.hpp"
#include "experiment/schema.hpp"

namespace {

dualgap::PluginRegistry& registry() {
  static dualgap::PluginRegistry r = [] {
    dualgap::PluginRegistry reg;
    reg.scan({DUALGAP_PLUGIN_DIR});
    return reg;
  }();
  return r;
}

template <class T>
std::shared_ptr<T> make(dualgap::Kind kind, const std::string& name, const dualgap::json& p) {
  auto& pl = registry().get(kind, name);
  return dualgap::create_object<T>(pl, dualgap::make_params(pl.description->params, p));
}

dualgap::Data dataset(const std::string& name, const dualgap::json& p) {
  return make<dualgap::DatasetPlugin>(dualgap::Kind::dataset, name, p)->load({});
}

void run_oracle(benchmark::State& state, const std::string& oracle_name, const dualgap::json& op,
                const dualgap::Data& data) {
  auto o = make<dualgap::StructuredOracle>(dualgap::Kind::oracle, oracle_name, op);
  const auto& ex = data.train;
  std::mt19937_64 rng(1);
  std::normal_distribution<double> g(0, 0.3);
  dualgap::Vector w(static_cast<Eigen::Index>(o->dim(ex.num_features(), ex.num_classes)));
  for (Eigen::Index k = 0; k < w.size(); ++k) w[k] = g(rng);
  dualgap::Labeling out;
  std::vector<double> scores;
  std::size_t i = 0;
  std::int64_t bytes = 0;
  for (auto _ : state) {
    o->max_oracle(ex, i, w, out, scores);
    benchmark::DoNotOptimize(out.labels.data());
    bytes += (static_cast<std::int64_t>(ex.units_of(i)) * ex.num_features() + w.size()) * 8;
    i = (i + 1) % ex.num_examples();
  }
  state.SetBytesProcessed(bytes);
  state.counters["units"] = static_cast<double>(ex.num_units()) / ex.num_examples();
}

void BM_chain_viterbi_ocr_like(benchmark::State& state) {
  static const auto data = dataset("synthetic_chain", {{"n_train", 200}, {"n_test", 0}, {"K", 26},
                                                      {"d", 128}, {"min_length", 8}, {"max_length", 8}});
  run_oracle(state, "chain_viterbi", {{"loss", "normalized"}}, data);
}
BENCHMARK(BM_chain_viterbi_ocr_like);

void BM_graph_cut_horse_like(benchmark::State& state) {
  static const auto data = dataset("synthetic_grid", {{"n_train", 20}, {"n_test", 0}, {"K", 2},
                                                     {"d", 40}, {"height", 20}, {"width", 20}});
  run_oracle(state, "graph_cut", {{"beta", 1.0}}, data);
}
BENCHMARK(BM_graph_cut_horse_like);

void BM_potts_expansion_K4(benchmark::State& state) {
  static const auto data = dataset("synthetic_grid", {{"n_train", 20}, {"n_test", 0}, {"K", 4},
                                                     {"d", 40}, {"height", 20}, {"width", 20}});
  run_oracle(state, "potts_expansion", {{"beta", 1.0}}, data);
}
BENCHMARK(BM_potts_expansion_K4);

void BM_stream_read(benchmark::State& state) {
  std::vector<double> v(static_cast<std::size_t>(state.range(0)), 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0.0));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0) * 8);
}
BENCHMARK(BM_stream_read)->Arg(1 << 12)->Arg(1 << 22);

}  // namespace

BENCHMARK_MAIN();
