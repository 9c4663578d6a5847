// Seed derivation (dualgap/random.hpp). The formula is frozen: see the header.
#include "dualgap/random.hpp"

#include "base/hash.hpp"

namespace dualgap {

std::uint64_t derive_seed(std::uint64_t seed, std::string_view stream, std::uint64_t index) {
  return splitmix64(hash64(stream, seed) + index);
}

}  // namespace dualgap
