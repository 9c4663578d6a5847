// Micro-benchmarks of the least-squares-revisited kernels: one stage of Algorithm 3 split in
// its parts (random Fourier block generation, Gram matrix, Cholesky, residual fit) and the
// simplex projection of Algorithm 2. n = 7000 rows of 50 inputs (MNIST after PCA-50).
//   build/bench/lsr_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <random>

#include "lsr/least_squares.hpp"

using namespace dualgap;

namespace {

DenseMatrix gaussian(Eigen::Index n, Eigen::Index d, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> N(0, 1);
  DenseMatrix X(n, d);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = N(rng);
  return X;
}

void BM_rff_block(benchmark::State& st) {
  const Eigen::Index n = 7000, d = 50, p = st.range(0);
  const DenseMatrix Z = gaussian(n, d, 1), W = gaussian(d, p, 2);
  for (auto _ : st) {
    DenseMatrix out;
    out.noalias() = Z * W;
    out = out.array().cos();
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n * p);
}
BENCHMARK(BM_rff_block)->Arg(300)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_stage_linear(benchmark::State& st) {
  // gram + Cholesky + X^T R + solve + prediction update: one linear stage.
  const Eigen::Index n = 7000, p = st.range(0), K = 10;
  const DenseMatrix X = gaussian(n, p, 3), R = gaussian(n, K, 4);
  DenseMatrix S = DenseMatrix::Zero(n, K);
  for (auto _ : st) {
    lsr::SplitDesign D;
    D.X = &X;
    D.A = DenseMatrix::Ones(n, 1);
    lsr::GramFactor M(D.gram(), 1e-4, 1e-8);
    Eigen::MatrixXd W = M.solve(D.xt(R));
    D.mul(W, S, true);
    benchmark::DoNotOptimize(S.data());
  }
}
BENCHMARK(BM_stage_linear)->Arg(300)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_simplex_projection(benchmark::State& st) {
  DenseMatrix P = gaussian(7000, st.range(0), 5);
  for (auto _ : st) {
    DenseMatrix Q = P;
    lsr::project_rows_simplex(Q);
    benchmark::DoNotOptimize(Q.data());
  }
  st.SetItemsProcessed(st.iterations() * 7000);
}
BENCHMARK(BM_simplex_projection)->Arg(10)->Arg(105)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
