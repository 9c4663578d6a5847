// Small utilities of the core: hashing, atomic file writes, time stamps.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "dualgap/api.hpp"

namespace dualgap {

/// 64-bit FNV-1a, for config hashes and file checksums.
struct Fnv64 {
  std::uint64_t h = 1469598103934665603ull;
  void add(const void* data, std::size_t n) {
    auto p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ull;
    }
  }
  void add(std::string_view s) { add(s.data(), s.size()); }
  std::string hex() const;
};

/// Checksum of a file's bytes (hex), memoized per path for this process. Throws if unreadable.
DUALGAP_API std::string file_hash_hex(const std::string& path);

/// Writes `content` to `path` atomically: a temporary file in the same folder, then rename.
DUALGAP_API void write_file_atomic(const std::string& path, const std::string& content);

/// Reads a whole file; throws std::runtime_error naming the file.
DUALGAP_API std::string read_file(const std::string& path);

/// SplitMix64: derives independent seeds from (seed, stream ids).
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
DUALGAP_API std::uint64_t derive_seed(std::uint64_t seed, std::string_view stream, std::uint64_t index);

/// Current time as ISO 8601 (UTC).
DUALGAP_API std::string iso_time_now();

/// Peak resident set size of this process in bytes.
DUALGAP_API std::int64_t peak_rss_bytes();

/// `s` with every byte that is not part of valid UTF-8, and every control character but tab, as
/// \xNN: safe in a message and in run.json.
DUALGAP_API std::string printable(std::string_view s);

}  // namespace dualgap
