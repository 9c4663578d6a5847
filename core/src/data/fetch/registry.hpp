// The registry of real data sets (data/registry.yaml): what each experiment reads, where it
// comes from, and the sha256 of every file; `dualgap data list|fetch`.
#pragma once

#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap::datafetch {

struct DataFile {
  std::string path;                 ///< relative to the data set's folder, e.g. "gray/horse001.jpg"
  long long bytes = -1;             ///< -1: not stated
  std::string sha256;               ///< of the file as stored
  std::string sha256_uncompressed;  ///< of its gunzip/bunzip2 content ("" when not compressed)
  std::vector<std::string> urls;    ///< public sources, tried in order
};

struct Dataset {
  std::string name, title, format, licence, paper, ours, source;
  std::vector<std::string> used_by;
  std::vector<DataFile> files;
  /// Many files (weizmann_horse): a sha256sum manifest kept beside the registry lists them;
  /// each is fetched from url_base + its path.
  std::string manifest_path, manifest_file, manifest_sha256, url_base;
};

struct Registry {
  std::string path;
  std::vector<Dataset> datasets;
  const Dataset* find(const std::string& name) const;
};

/// data/registry.yaml: $DUALGAP_DATA_REGISTRY, <exe>/../share/dualgap/registry.yaml, the source tree.
DUALGAP_API std::string find_registry();

/// Reads the registry; manifests are expanded into files. Every key is known and typed, a data
/// set's name is one safe path component and a file's path a relative path of such components
/// (so nothing is written outside <to>/<name>/), URLs are http(s). Throws std::runtime_error
/// naming file:line:column.
DUALGAP_API Registry read_registry(const std::string& path);

/// Why `s` cannot be one file or folder name: "" when it can; else "is empty", "is '..'",
/// "contains '/'", "contains a control character", "is not valid UTF-8".
DUALGAP_API std::string unsafe_component(const std::string& s);
/// Why `p` is not a relative path of safe components ("a/b.txt"): "" when it is one.
DUALGAP_API std::string unsafe_relative_path(const std::string& p);

/// sha256 of a file's bytes (hex), and of its decompressed content (gzip/bzip2 by magic).
DUALGAP_API std::string sha256_of_file(const std::string& path);
DUALGAP_API std::string sha256_of_content(const std::string& path);

struct FetchOptions {
  std::string to;      ///< target root (the data set goes to <to>/<name>/)
  std::string mirror;  ///< replaces every URL by <mirror>/<name>/<path> when not empty
  /// Most seconds one file's transfer may take (0: no limit).
  long timeout_seconds = 600;
  /// A transfer slower than low_speed_bytes per second for low_speed_seconds is ended.
  long low_speed_bytes = 1024;
  long low_speed_seconds = 30;
  /// Most bytes of a file whose size the registry does not state (its `bytes` caps the others).
  long long max_bytes = 1LL << 30;
};

/// Downloads the data set's missing or wrong files into <to>/<name>/, resuming a partial
/// download (<file>.part, HTTP Range) and verifying each checksum; a file that fails
/// verification, or of which the server sends more than its size, is deleted. Transfers are
/// bounded in bytes and time (FetchOptions). Progress and errors are written to `log`. Returns the number of
/// files that could not be fetched.
DUALGAP_API int fetch_dataset(const Dataset& ds, const FetchOptions& options, std::ostream& log);

/// " (fetch it with: dualgap data fetch NAME)" when `missing_path` lies in a registered data
/// set's folder under DUALGAP_DATA (or reads ${DUALGAP_DATA}/NAME/...), else "".
DUALGAP_API std::string fetch_hint(const std::string& missing_path);

}  // namespace dualgap::datafetch
