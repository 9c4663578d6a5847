// Seed derivation (dualgap/random.hpp). Both formulas are frozen: see the header.
#include "dualgap/random.hpp"

#include <cstring>

namespace dualgap {

std::uint64_t derive_seed(std::uint64_t seed, std::string_view stream, std::uint64_t index) {
  // The stream's id is the 64-bit FNV-1a of its name: a fixed function of the name, so that a
  // stream keeps its seeds across versions (not a content hash; those are XXH3, hash.hpp).
  std::uint64_t id = 1469598103934665603ull;
  for (unsigned char c : stream) {
    id ^= c;
    id *= 1099511628211ull;
  }
  return splitmix64(splitmix64(seed ^ id) + index);
}

std::uint64_t named_seed(std::string_view name, std::uint64_t key) {
  // Multiply-rotate mix of the name's bytes keyed by `key`, with a strong final avalanche. The
  // names are short (a few bytes), so only the word and byte tails run in practice.
  constexpr std::uint64_t k1 = 0x9E3779B185EBCA87ull, k2 = 0xC2B2AE3D27D4EB4Full, k3 = 0x165667B19E3779F9ull;
  auto rotl = [](std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  const auto* p = reinterpret_cast<const unsigned char*>(name.data());
  const std::size_t n = name.size();
  std::uint64_t h1 = key ^ k3, h2 = key + k1, h3 = ~key, h4 = key * k2 + 1;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    std::uint64_t w[4];
    std::memcpy(w, p + i, 32);
    h1 = rotl(h1 ^ (w[0] * k2), 31) * k1;
    h2 = rotl(h2 ^ (w[1] * k2), 29) * k1;
    h3 = rotl(h3 ^ (w[2] * k2), 27) * k1;
    h4 = rotl(h4 ^ (w[3] * k2), 33) * k1;
  }
  std::uint64_t h = rotl(h1, 1) + rotl(h2, 7) + rotl(h3, 12) + rotl(h4, 18);
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = rotl(h ^ (w * k2), 31) * k1 + k3;
  }
  for (; i < n; ++i) h = rotl(h ^ (p[i] * k3), 11) * k1;
  h ^= static_cast<std::uint64_t>(n);
  h ^= h >> 33;
  h *= k2;
  h ^= h >> 29;
  h *= k3;
  h ^= h >> 32;
  return h;
}

}  // namespace dualgap
