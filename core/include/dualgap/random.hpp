// The seeded generator of dualgap: SplitMix64 (Steele, Lea, Flood 2014), and the one derivation
// of independent seeds from a run's seed. One generator for the core and every plugin (splits,
// subsamples, synthetic data, random features, solver sampling), so that a seed means the same
// stream on every platform and standard library: std::shuffle and the std::*_distribution
// classes are implementation-defined, so a plugin draws through this class, never through them.
//
// The formulas below are frozen: splits, subsamples, synthetic data and feature draws depend on
// their exact outputs. Changing them changes the numbers of every experiment.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap {

/// One SplitMix64 step as a function: the output for state `x` (the generator's state is then
/// x + golden ratio). Also a good 64-bit mixer: splitmix64(a ^ b) decorrelates nearby seeds.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Deterministic 64-bit generator (SplitMix64): the same stream on every platform and library.
class SplitMix64 {
 public:
  static constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;
  explicit SplitMix64(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    const std::uint64_t z = splitmix64(s_);
    s_ += kGolden;
    return z;
  }
  /// Uniform in [0, n) (n > 0), unbiased (rejection).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = ~0ull - (~0ull % n);
    std::uint64_t x;
    do x = next(); while (x >= limit);
    return x % n;
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Standard normal (Box-Muller; deterministic across platforms up to libm rounding).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1;
    do u1 = uniform(); while (u1 <= 0.0);
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(6.283185307179586 * u2);
    has_spare_ = true;
    return r * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t s_;
  bool has_spare_ = false;
  double spare_ = 0;
};

/// Fisher-Yates shuffle of [first, last) with SplitMix64.
template <class RandomIt>
void shuffle(RandomIt first, RandomIt last, SplitMix64& rng) {
  for (auto i = static_cast<std::size_t>(last - first); i > 1; --i) std::swap(first[i - 1], first[rng.below(i)]);
}

/// Fisher-Yates shuffle of a whole vector with SplitMix64.
template <class T>
void shuffle(std::vector<T>& v, SplitMix64& rng) {
  shuffle(v.begin(), v.end(), rng);
}

/// The seed of stream `stream` and index `index` derived from `seed`:
/// splitmix64(XXH3_64(stream, seed) + index), XXH3 of libxxhash seeded with `seed`. The only seed
/// derivation of dualgap: the runner derives each repeat's "data", "features" and
/// "solver:<name>" seeds with it, the data pipeline each step's ("split", "per_class",
/// "per_class_test", "validation"), and a plugin the streams of its own draws (e.g.
/// derive_seed(ctx.seed, "prototypes", 0) and derive_seed(ctx.seed, "examples", 0)).
DUALGAP_API std::uint64_t derive_seed(std::uint64_t seed, std::string_view stream, std::uint64_t index);

}  // namespace dualgap
