#include "base/hash.hpp"

#include <cstdio>
#include <new>
#include <xxhash.h>

namespace dualgap {

Hash64::Hash64() : state_(XXH3_createState()) {
  if (!state_) throw std::bad_alloc();
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));
}
Hash64::~Hash64() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void Hash64::add(const void* data, std::size_t n) { XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data, n); }
std::uint64_t Hash64::value() const { return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_)); }
std::string Hash64::hex() const { return hex64(value()); }

std::uint64_t hash64(const void* data, std::size_t n, std::uint64_t seed) { return XXH3_64bits_withSeed(data, n, seed); }

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace dualgap
