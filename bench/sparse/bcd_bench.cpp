// One BCD outer iteration (d block gradients + d margin updates with the loss change, i.e. the
// line-search path of bcd with every block moving) on Sector (n = 6412, d = 55197, K = 105,
// 1.05M non-zeros), for the multiclass squared hinge and the logistic loss, beside stream reads
// of a buffer the size of the n x K score matrix (cache-resident) and of a 512 MB buffer (DRAM).
// The bound: one outer iteration must at least read the K-1 margins of every non-zero once,
// nnz (K-1) 8 bytes; bound_s = that / (measured stream bandwidth). fraction = bound_s / time.
// Needs DUALGAP_DATA (the Sector files); skips otherwise.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <numeric>

#include "dualgap/dataset.hpp"
#include "dualgap/oracles/block_loss.hpp"
#include "data/options.hpp"
#include "data/pipeline.hpp"
#include "plugins/loader.hpp"
#include "experiment/schema.hpp"

using namespace dualgap;

namespace {

PluginRegistry& reg() {
  static PluginRegistry r = [] {
    PluginRegistry x;
    x.scan({DUALGAP_PLUGIN_DIR});
    return x;
  }();
  return r;
}

const Data* sector() {
  static std::unique_ptr<Data> data = []() -> std::unique_ptr<Data> {
    const char* root = std::getenv("DUALGAP_DATA");
    if (!root) return nullptr;
    const auto train = std::filesystem::path(root) / "sector/sector.scale.bz2";
    if (!std::filesystem::exists(train)) return nullptr;
    const auto& p = reg().get(Kind::dataset, "libsvm");
    const json params = make_params(data_schema(p.description->params), {{"train", train.string()}, {"cache", false}}).raw();
    return std::make_unique<Data>(load_data(p, params, DatasetContext{}));
  }();
  return data.get();
}

double g_stream_small_Bps = 0, g_stream_large_Bps = 0;

double stream_read(benchmark::State& st, std::size_t bytes) {
  std::vector<double> a(bytes / 8, 1.0);
  // Eight independent accumulators: the loop is limited by the loads, not by a chain of adds.
  double s = 0;
  for (auto _ : st) {
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const double* p = a.data();
    const std::size_t m = a.size() / 8 * 8;
    for (std::size_t k = 0; k < m; k += 8)
      for (int l = 0; l < 8; ++l) acc[l] += p[k + l];
    s += std::accumulate(acc, acc + 8, 0.0);
    benchmark::DoNotOptimize(s);
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(bytes));
  return static_cast<double>(bytes);
}

void BM_StreamRead_ScoreMatrixSize(benchmark::State& st) {
  const std::size_t bytes = 6412ull * 105 * 8;
  stream_read(st, bytes);
}
void BM_StreamRead_512MB(benchmark::State& st) { stream_read(st, 512ull << 20); }

void BM_BcdOuterIteration(benchmark::State& st, const char* loss) {
  const Data* data = sector();
  if (!data) {
    st.SkipWithError("DUALGAP_DATA/sector/sector.scale.bz2 not available");
    return;
  }
  const auto& p = reg().get(Kind::oracle, loss);
  auto oracle = create_object<BlockLossOracle>(p, make_params(p.description->params));
  oracle->bind(data->train);
  const Eigen::Index d = oracle->num_features();
  const int K = oracle->num_classes();
  std::vector<double> G(K), h(K), delta(K);
  double sink = 0;
  for (auto _ : st) {
    for (Eigen::Index j = 0; j < d; ++j) {
      oracle->block_gradient(j, G.data(), h.data());
      for (int r = 0; r < K; ++r) delta[r] = -1e-3 * G[r];
      sink += oracle->update_block(j, delta.data(), true);
    }
  }
  benchmark::DoNotOptimize(sink);
  const double nnz = static_cast<double>(data->train.X.nonzeros());
  st.counters["nnz"] = nnz;
  st.counters["bound_bytes"] = nnz * (K - 1) * 8.0;
}

// The first sweep alone: d block gradients (what an outer iteration costs when no block moves).
void BM_BcdGradientSweep(benchmark::State& st, const char* loss) {
  const Data* data = sector();
  if (!data) {
    st.SkipWithError("DUALGAP_DATA/sector/sector.scale.bz2 not available");
    return;
  }
  const auto& p = reg().get(Kind::oracle, loss);
  auto oracle = create_object<BlockLossOracle>(p, make_params(p.description->params));
  oracle->bind(data->train);
  const Eigen::Index d = oracle->num_features();
  const int K = oracle->num_classes();
  std::vector<double> G(K), h(K);
  double sink = 0;
  for (auto _ : st) {
    for (Eigen::Index j = 0; j < d; ++j) {
      oracle->block_gradient(j, G.data(), h.data());
      sink += G[0];
    }
  }
  benchmark::DoNotOptimize(sink);
}

}  // namespace

BENCHMARK(BM_StreamRead_ScoreMatrixSize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamRead_512MB)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BcdOuterIteration, multiclass_sq_hinge, "multiclass_sq_hinge")
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(BM_BcdGradientSweep, multiclass_sq_hinge, "multiclass_sq_hinge")
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(BM_BcdOuterIteration, multiclass_logistic, "multiclass_logistic")
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_MAIN();
