// The binary cache of the data a plugin returns, kept in the run's cache folder so that repeats
// and later runs skip parsing. Keyed by what config_hash gathers about the data: the plugin (its
// name and the bytes of its library), its own parameters with paths made canonical, and the
// bytes of the files they name -- never by how a path is spelled.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "dualgap/api.hpp"
#include "dualgap/data.hpp"
#include "dualgap/params.hpp"

namespace dualgap {

/// Cache format version; bump when the layout changes.
inline constexpr std::uint32_t kDataCacheVersion = 2;

/// The key of a plugin's data. `plugin_path`: its library ("" when unknown); `own_params`: the
/// plugin's parameters (plugin_own_params); `seed`: part of the key when the data depend on it.
DUALGAP_API std::uint64_t data_cache_key(const std::string& plugin, const std::string& plugin_path,
                                         const json& own_params, const std::uint64_t* seed);

/// Path of the cache file of a key: "<dir>/<plugin>-<16 hex>.dgcache".
DUALGAP_API std::string cache_path(const std::string& cache_dir, const std::string& plugin, std::uint64_t key);

/// Returns the cached Data for `key` when there is one, else runs `load` and stores its result
/// atomically. Records "cache": "hit" | "stored" | "write failed" | "off" in the source.
/// Empty cache_dir = no cache. A stale, foreign or corrupt file is never a wrong result: reloaded.
DUALGAP_API Data load_with_cache(const std::string& cache_dir, const std::string& plugin, std::uint64_t key,
                                 const std::function<Data()>& load);

/// The content hash of the data a run is trained and tested on (train and test examples:
/// features, labels, structure; not the name or the source description): what identifies a
/// problem's data, whichever seeds or files produced it. 16 hex digits.
DUALGAP_API std::string data_content_hash(const Data& data);

/// Serialization used by the cache (exposed for tests and the benchmark).
DUALGAP_API std::string serialize_data(const Data& data, std::uint64_t key);
DUALGAP_API bool deserialize_data(std::string_view bytes, std::uint64_t key, Data& out);

}  // namespace dualgap
