// Writes a multi-class data set of the family "planted linear model with label noise" as a LIBSVM
// file, which dualgap (plugin libsvm) and liblinear-train both read:
//
//   gen_linear OUT n [d=20000] [nnz=30] [K=20] [noise=0.1] [seed=0]
//
// Model: planted weights W* (K x d, entries N(0, 1)). Row i has `nnz` distinct features drawn
// uniformly from 1..d, values N(0, 1), the row scaled to unit L2 norm; its clean class is
// argmax_k <W*_k, x_i>; with probability `noise` the label is replaced by a class drawn uniformly
// from the other K - 1 (so about noise x n labels are wrong). Labels are written 1..K, indices
// 1-based and increasing, values with 6 significant digits.
//
// Deterministic from the seed on every platform: the generator's own SplitMix64 stream and
// Box-Muller draws (std::normal_distribution differs between standard libraries); only the last
// printed digit of a value could differ where libm's log/cos differ in the last bit. The file is
// written to OUT.tmp and renamed: a killed run leaves no half file under OUT.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1): 53 random bits, never 0 (Box-Muller takes its log).
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  /// Uniform in 0..m-1 (m small: the modulo bias is below 2^-40).
  std::uint64_t below(std::uint64_t m) { return next() % m; }
  double normal() {
    const double u = uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
};

long long arg(int argc, char** argv, int i, long long def) {
  if (argc <= i) return def;
  char* end = nullptr;
  const long long v = std::strtoll(argv[i], &end, 10);
  if (!end || *end || v <= 0) {
    std::fprintf(stderr, "gen_linear: argument %d ('%s') must be a positive integer\n", i, argv[i]);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gen_linear OUT n [d=20000] [nnz=30] [K=20] [noise=0.1] [seed=0]\n");
    return 2;
  }
  const std::string out = argv[1];
  const long long n = arg(argc, argv, 2, 0), d = arg(argc, argv, 3, 20000), nnz = arg(argc, argv, 4, 30),
                  K = arg(argc, argv, 5, 20);
  const double noise = argc > 6 ? std::strtod(argv[6], nullptr) : 0.1;
  const std::uint64_t seed = argc > 7 ? std::strtoull(argv[7], nullptr, 10) : 0;
  if (nnz > d || K < 2 || !(noise >= 0 && noise <= 1)) {
    std::fprintf(stderr, "gen_linear: need nnz <= d, K >= 2 and noise in [0, 1]\n");
    return 2;
  }
  SplitMix64 model{seed * 0x632BE59BD9B4E019ull + 1}, rows{seed * 0x632BE59BD9B4E019ull + 2};
  std::vector<double> W(static_cast<std::size_t>(K * d));
  for (double& w : W) w = model.normal();

  const std::string tmp = out + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    std::perror(tmp.c_str());
    return 1;
  }
  std::vector<long long> idx(static_cast<std::size_t>(nnz));
  std::vector<std::pair<long long, double>> row(static_cast<std::size_t>(nnz));
  std::vector<double> score(static_cast<std::size_t>(K));
  std::string buf;
  buf.reserve(1 << 20);
  char num[64];
  for (long long i = 0; i < n; ++i) {
    // nnz distinct features: redraw a duplicate (nnz << d: few redraws)
    for (long long t = 0; t < nnz;) {
      const long long j = static_cast<long long>(rows.below(static_cast<std::uint64_t>(d)));
      if (std::find(idx.begin(), idx.begin() + t, j) != idx.begin() + t) continue;
      idx[static_cast<std::size_t>(t++)] = j;
    }
    std::sort(idx.begin(), idx.end());
    double norm2 = 0;
    for (long long t = 0; t < nnz; ++t) {
      const double v = rows.normal();
      row[static_cast<std::size_t>(t)] = {idx[static_cast<std::size_t>(t)], v};
      norm2 += v * v;
    }
    const double scale = 1.0 / std::sqrt(norm2);
    std::fill(score.begin(), score.end(), 0.0);
    for (auto& [j, v] : row) {
      v *= scale;
      for (long long k = 0; k < K; ++k) score[static_cast<std::size_t>(k)] += W[static_cast<std::size_t>(k * d + j)] * v;
    }
    long long label = std::max_element(score.begin(), score.end()) - score.begin();
    if (rows.uniform() < noise) label = (label + 1 + static_cast<long long>(rows.below(static_cast<std::uint64_t>(K - 1)))) % K;
    buf += std::to_string(label + 1);
    for (const auto& [j, v] : row) {
      buf += ' ';
      buf += std::to_string(j + 1);
      buf += ':';
      const int len = std::snprintf(num, sizeof num, "%.6g", v);
      buf.append(num, static_cast<std::size_t>(len));
    }
    buf += '\n';
    if (buf.size() > (1 << 20) - 4096) {
      if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
        std::perror(tmp.c_str());
        return 1;
      }
      buf.clear();
    }
  }
  if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size() || std::fclose(f) != 0 ||
      std::rename(tmp.c_str(), out.c_str()) != 0) {
    std::perror(out.c_str());
    return 1;
  }
  return 0;
}
