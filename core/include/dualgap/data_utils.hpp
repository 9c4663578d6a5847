// Helpers shared by the dataset plugins: reading (possibly compressed) files, clear file errors,
// fast number parsing, label remapping, stratified splits, per-class subsampling, scaling, the
// parsed-data binary cache and the common dataset option schema.
//
// A file-based dataset plugin does:
//   DatasetOptions opt = DatasetOptions::from(params);        // the common options
//   return load_files("name", "1.0.0", {{train, "train"}, {opt.test, "test"}}, parse_options,
//                     opt, ctx.seed, ctx.cache_dir, [&](const RawFiles& f) { return parse(f); });
// which resolves and reads the files, keys the binary cache by their bytes and the parse
// options, parses on a miss, and applies finish_dataset (split, subsample, scale).
//
// Errors are DataError (a std::runtime_error) whose message starts with "file:line: " when a
// line is known, e.g. "zip.train.gz:1042: expected 256 features, found 255".
#pragma once

#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "dualgap/api.hpp"
#include "dualgap/data.hpp"
#include "dualgap/params.hpp"
#include "dualgap/random.hpp"

namespace dualgap {

/// A data-loading error (missing file, malformed line, inconsistent options).
class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// "file:line: message" (line >= 1) or "file: message" (line == 0).
DUALGAP_API DataError data_error(const std::string& file, std::size_t line, const std::string& message);

// ---------------------------------------------------------------------------------------------
// Files

enum class Compression { none, gzip, bzip2 };
DUALGAP_API const char* to_string(Compression c);

/// Expands "${DUALGAP_DATA}" (and any other ${VAR}) in `path` and checks that the file exists.
/// A missing file throws DataError naming the file; when the path uses or lies under
/// DUALGAP_DATA (or DUALGAP_DATA is unset) the message says to set DUALGAP_DATA and points to
/// shared/data/README.md (section of the dataset folder) for where the data comes from.
/// `role` names the option in messages ("train", "test", "train_labels").
DUALGAP_API std::string resolve_data_path(const std::string& path, const std::string& role = "");

/// The bytes of a file as stored on disk. Throws DataError (via resolve rules) when missing.
DUALGAP_API std::string read_raw_file(const std::string& path);
/// Compression detected from the magic bytes (1f 8b = gzip, "BZh" = bzip2), not the extension.
DUALGAP_API Compression detect_compression(std::string_view bytes);
/// Decompresses `bytes` (gzip/bzip2 by magic; returned unchanged when not compressed).
/// `file` names the source in error messages (truncated or corrupt stream).
DUALGAP_API std::string decompress(std::string bytes, const std::string& file);
/// read_raw_file + decompress.
DUALGAP_API std::string read_data_file(const std::string& path);

/// 64-bit XXH3 of a buffer (libxxhash): keys the cache and checks its payload.
DUALGAP_API std::uint64_t checksum64(const void* data, std::size_t n, std::uint64_t seed = 0);
inline std::uint64_t checksum64(std::string_view s, std::uint64_t seed = 0) {
  return checksum64(s.data(), s.size(), seed);
}
/// Checksum of a file's stored bytes.
DUALGAP_API std::uint64_t file_checksum(const std::string& path);

/// Last path component ("/a/b/zip.train.gz" -> "zip.train.gz").
DUALGAP_API std::string file_name(const std::string& path);

// ---------------------------------------------------------------------------------------------
// Text scanning (header-only so the parsing loops inline)

/// Iterates over the lines of a text buffer; strips a trailing '\r' (CRLF files).
class LineScanner {
 public:
  explicit LineScanner(std::string_view text) : text_(text) {}
  /// Next line (without the newline); false at the end. line_number() is 1-based.
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const char* begin = text_.data() + pos_;
    const void* nl = std::memchr(begin, '\n', text_.size() - pos_);
    std::size_t len = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin) : text_.size() - pos_;
    pos_ += len + (nl ? 1 : 0);
    ++line_;
    if (len > 0 && begin[len - 1] == '\r') --len;
    line = std::string_view(begin, len);
    return true;
  }
  std::size_t line_number() const { return line_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
};

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Parses a whole token as a finite double (accepts a leading '+'). False if not a number.
inline bool parse_double(std::string_view tok, double& out) {
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (b != e && *b == '+') ++b;
  if (b == e) return false;
  auto r = std::from_chars(b, e, out);
  if (r.ec != std::errc() || r.ptr != e) return false;
  return out - out == 0.0;  // finite
}

/// Parses a whole token as a non-negative integer.
inline bool parse_index(std::string_view tok, std::int64_t& out) {
  if (tok.empty()) return false;
  auto r = std::from_chars(tok.data(), tok.data() + tok.size(), out);
  return r.ec == std::errc() && r.ptr == tok.data() + tok.size() && out >= 0;
}

/// Shortens a token for an error message (at most 40 bytes, cut between UTF-8 characters;
/// bytes that are not UTF-8 shown as \xNN).
DUALGAP_API std::string quote_token(std::string_view tok);

/// True when `s` is valid UTF-8: text that becomes a class name or a message in run.json must be.
DUALGAP_API bool valid_utf8(std::string_view s);

// ---------------------------------------------------------------------------------------------
// Labels

/// Maps raw label tokens to 0..K-1 in sorted order: numerically when every token is a number
/// ("6.0000" and "6" are the same class), otherwise lexicographically ("Iris-setosa" ...).
/// Build it from train and test tokens together so both splits share one map.
class DUALGAP_API LabelMap {
 public:
  /// Builds the map from distinct raw tokens.
  static LabelMap build(const std::vector<std::string>& distinct_tokens);
  int num_classes() const { return static_cast<int>(names_.size()); }
  /// Class index of a raw token; -1 if unknown.
  int index(std::string_view token) const;
  /// Canonical name of class k (the number printed with %g, or the string).
  const std::string& name(int k) const { return names_[static_cast<std::size_t>(k)]; }
  const std::vector<std::string>& names() const { return names_; }
  bool numeric() const { return numeric_; }

 private:
  bool numeric_ = true;
  std::vector<std::string> names_;
  std::vector<double> values_;  // sorted, numeric maps only
};

/// Collects distinct label tokens cheaply while parsing (small set, linear probing).
class DUALGAP_API LabelCollector {
 public:
  /// Returns a provisional id (order of first appearance) for the token.
  int add(std::string_view token);
  const std::vector<std::string>& tokens() const { return tokens_; }

 private:
  std::vector<std::string> tokens_;
  std::string last_;
  int last_id_ = -1;
};

/// Per-class counts of y (length num_classes).
DUALGAP_API std::vector<std::int64_t> class_counts(const Examples& ex);

// ---------------------------------------------------------------------------------------------
// Splits, subsampling, scaling

/// Splits the examples into (train, test) index lists, each in increasing order.
/// stratified: the test side holds round(test_fraction * n) examples and each class contributes
/// floor or ceil of test_fraction * its count (largest remainders get the ceil; class of an
/// example = class of its first unit). by_group: whole groups (Examples::group) go to one side, the test
/// side receiving groups until it holds about test_fraction of the examples.
DUALGAP_API std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_indices(
    const Examples& ex, double test_fraction, std::uint64_t seed, bool stratified, bool by_group);

/// At most `per_class` random examples of each class (all of a smaller class), increasing order.
DUALGAP_API std::vector<std::size_t> per_class_indices(const Examples& ex, std::int64_t per_class,
                                                       std::uint64_t seed);

enum class Scaling { none, minmax01, minmax11, maxabs, standardize };
DUALGAP_API Scaling parse_scaling(const std::string& s);
DUALGAP_API const char* to_string(Scaling s);

/// Fits the scaling on `train` and applies it to both (test may be empty). Constant features
/// map to 0. minmax/standardize shift values, so they need dense data (DataError on sparse);
/// maxabs keeps sparsity. Test values are not clipped to the training range.
DUALGAP_API void apply_scaling(Examples& train, Examples& test, Scaling s);

// ---------------------------------------------------------------------------------------------
// Common options

/// Schema fragment shared by every dataset plugin: test, test_fraction, stratified,
/// split_by_group, per_class, per_class_test, max_examples, max_test_examples, scale,
/// seed_offset, cache. `with_test_file` = false leaves out `test` (generators).
DUALGAP_API std::vector<ParamSpec> common_dataset_params(bool with_test_file = true);

struct DUALGAP_API DatasetOptions {
  std::string test;                 ///< test file ("" = none)
  double test_fraction = 0;         ///< split train when there is no test file (0 = no split)
  bool stratified = true;
  bool split_by_group = false;
  std::int64_t per_class = 0;       ///< 0 = keep all
  std::int64_t per_class_test = 0;
  std::int64_t max_examples = 0;    ///< keep the first N parsed training examples (0 = all)
  std::int64_t max_test_examples = 0;
  Scaling scale = Scaling::none;
  std::int64_t seed_offset = 0;
  bool cache = true;

  static DatasetOptions from(const Params& p);
  /// The options that change the parsed data (none of these do; kept for the record).
  json to_json() const;
};

/// Applies, in this order: max_examples (file order), the seeded split when there is no test
/// set and test_fraction > 0, per-class subsampling of train / test, scaling (fitted on train).
/// Checks both splits and appends what was done to data.source (a JSON object string).
DUALGAP_API Data finish_dataset(Data data, const DatasetOptions& opt, std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// Binary cache of parsed data

/// Builds a cache key from the plugin name/version, the source files' checksums and the parse
/// options (anything that changes the parsed result).
struct DUALGAP_API CacheKey {
  std::string plugin;
  std::uint64_t hash = 0;
  CacheKey(std::string plugin_name, const std::string& plugin_version);
  void add_file(const std::string& path);       ///< checksum of the stored bytes
  void add_bytes(std::string_view bytes);        ///< when the bytes are already in memory
  void add(const json& options);
  std::string file_stem() const;                 ///< "<plugin>-<16 hex>"
};

/// Loads a cached Data; false (never a wrong result) when the cache is off, absent, stale,
/// from another format version or corrupt.
DUALGAP_API bool load_cache(const std::string& cache_dir, const CacheKey& key, Data& out);
/// Stores Data atomically (temp file + rename). Failures to write are ignored (returns false).
DUALGAP_API bool store_cache(const std::string& cache_dir, const CacheKey& key, const Data& data);
/// Path of the cache file for a key.
DUALGAP_API std::string cache_path(const std::string& cache_dir, const CacheKey& key);

/// Returns the cached Data for `key` when there is one, else runs `parse` and stores its result.
/// Records "cache": "hit" | "stored" | "off" in the source JSON. Empty cache_dir = no cache.
DUALGAP_API Data load_with_cache(const std::string& cache_dir, const CacheKey& key,
                                 const std::function<Data()>& parse);

/// The files of one load: resolved paths and their raw (possibly compressed) bytes, in the
/// order given to load_files (files with an empty path are left out).
struct RawFiles {
  std::vector<std::string> paths;
  std::vector<std::string> bytes;
};

/// The load pipeline of a file-based dataset plugin: resolves each (path, role) of `files`
/// (empty paths are skipped), reads their raw bytes, keys the binary cache by the bytes, the
/// number of files and `parse_options`, runs `parse` on a cache miss, and applies the common
/// options (finish_dataset). `cache_dir` empty or `opt.cache` false: no cache.
DUALGAP_API Data load_files(const std::string& plugin, const std::string& version,
                            const std::vector<std::pair<std::string, std::string>>& files,
                            const json& parse_options, const DatasetOptions& opt, std::uint64_t seed,
                            const std::string& cache_dir, const std::function<Data(const RawFiles&)>& parse);

/// Serialization used by the cache (exposed for tests and the benchmark).
DUALGAP_API std::string serialize_data(const Data& data, std::uint64_t key);
DUALGAP_API bool deserialize_data(std::string_view bytes, std::uint64_t key, Data& out);

/// Cache format version; bump when the layout changes.
inline constexpr std::uint32_t kDataCacheVersion = 1;

}  // namespace dualgap
