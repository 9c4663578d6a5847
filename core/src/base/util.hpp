// Small utilities of the core: file hashes, ${VAR} expansion, time stamps (and, through
// base/files.hpp, reading and atomically writing files).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "dualgap/api.hpp"
#include "dualgap/random.hpp"
#include "base/files.hpp"
#include "base/hash.hpp"

namespace dualgap {

/// XXH3 of a file's bytes, read in pieces of 1 MB (what hash64 gives for the whole content).
/// Throws FileError if unreadable.
DUALGAP_API std::uint64_t file_hash64(const std::string& path);
/// file_hash64 as hex, memoized per path for this process.
DUALGAP_API std::string file_hash_hex(const std::string& path);

/// Expands every ${NAME} (and $(NAME), the spelling config.cpp gives ${NAME} inside YAML flow
/// mappings) in `s` with the environment variable NAME; NAME is [A-Za-z_][A-Za-z0-9_]*. A
/// variable that is unset or empty calls `unset(NAME)`, which must throw the caller's message.
/// The one ${VAR} expander of the core (config values, path defaults, dataset paths).
DUALGAP_API std::string expand_env_vars(std::string_view s, const std::function<void(const std::string& name)>& unset);

/// Current time as ISO 8601 (UTC).
DUALGAP_API std::string iso_time_now();

/// Peak resident set size of this process in bytes.
DUALGAP_API std::int64_t peak_rss_bytes();

/// CPUs this process may run on (its affinity mask: what taskset, a cgroup cpuset or Slurm's
/// binding leave it), at least 1; the hardware threads when the mask cannot be read.
DUALGAP_API int usable_cpus();

/// `s` with every byte that is not part of valid UTF-8, and every control character but tab, as
/// \xNN: safe in a message and in run.json.
DUALGAP_API std::string printable(std::string_view s);

}  // namespace dualgap
