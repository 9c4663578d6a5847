// The content hash of the core: XXH3 (libxxhash) for config hashes, file checksums, cache keys
// and the cache's payload check. Not for seeds (dualgap/random.hpp): those formulas are frozen.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "dualgap/api.hpp"

namespace dualgap {

/// Incremental 64-bit XXH3 of everything add()ed.
class DUALGAP_API Hash64 {
 public:
  Hash64();
  ~Hash64();
  Hash64(const Hash64&) = delete;
  Hash64& operator=(const Hash64&) = delete;
  void add(const void* data, std::size_t n);
  void add(std::string_view s) { add(s.data(), s.size()); }
  std::uint64_t value() const;
  /// value() as 16 lower-case hex digits.
  std::string hex() const;

 private:
  void* state_;  // XXH3_state_t
};

/// XXH3 64-bit hash of a buffer (seed 0 unless given).
DUALGAP_API std::uint64_t hash64(const void* data, std::size_t n, std::uint64_t seed = 0);
inline std::uint64_t hash64(std::string_view s, std::uint64_t seed = 0) { return hash64(s.data(), s.size(), seed); }
/// 16 lower-case hex digits of a 64-bit value.
DUALGAP_API std::string hex64(std::uint64_t v);

}  // namespace dualgap
