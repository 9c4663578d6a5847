// What a dataset plugin needs to parse files: find and read them (gzip/bzip2 by magic bytes),
// scan lines, parse numbers, map raw labels to classes 0..K-1, and report bad input as
// "file:line: what was expected".
//
// A dataset plugin declares its parameters in an Options struct (dualgap/options.hpp; the
// `test` file: test_file_field below), parses and returns the data as read (train, and test
// when the format has a test file); the core then applies the common `data:` options to every plugin alike: seeded
// split, per-class subsampling, scaling, the validation hold-out and the binary cache
// (core/src/data/). A format plugin looks like
//   Data load(const DatasetContext&) override {
//     RawFiles f = read_files({{train_, "train"}, {test_, "test"}});
//     return parse(f);   // LineScanner over decompress(f.bytes[0], f.paths[0]), LabelMap, ...
//   }
// A text format whose files may be large reads them as libsvm and dense_text do: TextReader
// (the lines of resolve_data_path(train_, "train"), read in pieces) into BlockArray columns,
// drained into the exact matrix, so that the text is never held whole (docs/data.md, Memory).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "dualgap/api.hpp"
#include "dualgap/data.hpp"
#include "dualgap/options.hpp"
#include "dualgap/params.hpp"

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

/// The files of one load: resolved paths and their stored (possibly compressed) bytes.
struct RawFiles {
  std::vector<std::string> paths;
  std::vector<std::string> bytes;
};
/// Resolves (resolve_data_path) and reads each (path, role) of `files` in order; entries with
/// an empty path (an absent optional file) are left out.
DUALGAP_API RawFiles read_files(const std::vector<std::pair<std::string, std::string>>& files);

/// Last path component ("/a/b/zip.train.gz" -> "zip.train.gz").
DUALGAP_API std::string file_name(const std::string& path);

/// The `test` parameter of a format with a separate test file (same format as train), stored
/// in `member` (absent: no test file). In an Options' bind: `test_file_field(b, &Options::test);`.
template <class O>
typename Binder<O>::Field test_file_field(Binder<O>& b, std::optional<std::string> O::*member) {
  return b.field(member, "test", "test file (same format as train); absent: no test set, or a split of train (test_fraction)")
      .path();
}

// ---------------------------------------------------------------------------------------------
// Text scanning (header-only so the parsing loops inline)

/// The line reader of every text format: iterates over the lines of a text buffer, skips a
/// UTF-8 byte order mark at its start (editors on Windows write one; it would otherwise be part
/// of the first label or value) and strips a trailing '\r' (CRLF files). Line numbers count
/// every line, blank and comment lines included, as an editor shows them.
class LineScanner {
 public:
  explicit LineScanner(std::string_view text) : text_(text) {
    if (text_.size() >= 3 && text_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
  }
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

/// The lines of a data file read in pieces (plain, gzip or bzip2 by magic bytes), as LineScanner
/// gives them: a parser holds a few MB of the text at a time, never the whole file nor its
/// decompressed copy (a 590 MB LIBSVM file would otherwise be held twice while it is parsed).
/// A line longer than a piece is read whole (the buffer grows to hold it).
class DUALGAP_API TextReader {
 public:
  /// Opens `path` (a resolved path: resolve_data_path). Throws DataError naming the file when it
  /// is missing, not a regular file or unreadable; a corrupt or truncated compressed stream is a
  /// DataError from next() when the reader reaches it.
  explicit TextReader(const std::string& path, std::size_t piece_bytes = std::size_t{4} << 20);
  ~TextReader();
  TextReader(const TextReader&) = delete;
  TextReader& operator=(const TextReader&) = delete;

  const std::string& path() const { return path_; }
  /// The file's compression (magic bytes).
  Compression compression() const { return compression_; }
  /// Next line (without the newline, a trailing '\r' stripped, a UTF-8 byte order mark at the
  /// start of the file skipped); false at the end. Valid until the next call.
  bool next(std::string_view& line) {
    for (;;) {
      if (pos_ < end_) {
        const char* begin = buf_.get() + pos_;
        const void* nl = std::memchr(begin, '\n', end_ - pos_);
        if (nl || eof_) {
          std::size_t len = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin) : end_ - pos_;
          pos_ += len + (nl ? 1 : 0);
          ++line_;
          if (len > 0 && begin[len - 1] == '\r') --len;
          line = std::string_view(begin, len);
          return true;
        }
      } else if (eof_) {
        return false;
      }
      refill();
    }
  }
  /// 1-based number of the line next() returned last (every line counts, as in LineScanner).
  std::size_t line_number() const { return line_; }
  /// Bytes of (decompressed) text read so far.
  std::uint64_t bytes_read() const { return bytes_; }

 private:
  void refill();  ///< keeps [pos_, end_) at the buffer's start, reads on; sets eof_

  struct Source;
  std::string path_;
  Compression compression_ = Compression::none;
  std::unique_ptr<Source> src_;
  std::unique_ptr<char[]> buf_;  // not zero-filled: only the pages the text reaches are touched
  std::size_t cap_ = 0, pos_ = 0, end_ = 0, line_ = 0;
  std::uint64_t bytes_ = 0;
  bool eof_ = false;
};

namespace detail {
/// Anonymous pages for a BlockArray block (mmap): untouched pages cost no memory, and freed
/// ones go back to the system at once. From malloc, a block freed while the parse turns its
/// blocks into the final array would stay in malloc's heap, resident, until the heap is trimmed:
/// the peak would hold the blocks and the array together. Throws std::bad_alloc.
DUALGAP_API void* map_pages(std::size_t bytes);
DUALGAP_API void populate_pages(void* p, std::size_t bytes) noexcept;
DUALGAP_API void unmap_pages(void* p, std::size_t bytes) noexcept;
}  // namespace detail

/// An array that grows in blocks of fixed size, for a parser that learns how many values a file
/// holds only at its end. Growing never moves what is stored (a std::vector that doubles holds
/// its old and its new array at once, up to 3x the values, and may end with twice the capacity
/// needed), and drain() copies the values into the exact final array block by block, unmapping
/// each: the peak is the final array plus one block. T: a trivially copyable type.
template <class T>
class BlockArray {
 public:
  static constexpr std::size_t kBlock = std::size_t{1} << 17;  ///< values per block (0.5-1 MB)
  /// Values whose pages are faulted in at once, just before the first of them is written: one
  /// call instead of one trap per 4 KB page, and at most one piece (64-128 KB) beyond the values.
  static constexpr std::size_t kPiece = kBlock / 8;

  BlockArray() = default;
  BlockArray(BlockArray&& o) noexcept : blocks_(std::move(o.blocks_)), size_(o.size_) {
    o.blocks_.clear();
    o.size_ = 0;
  }
  BlockArray& operator=(BlockArray&& o) noexcept {
    if (this != &o) {
      release();
      blocks_ = std::move(o.blocks_);
      size_ = o.size_;
      o.blocks_.clear();
      o.size_ = 0;
    }
    return *this;
  }
  BlockArray(const BlockArray&) = delete;
  BlockArray& operator=(const BlockArray&) = delete;
  ~BlockArray() { release(); }

  void push_back(const T& v) {
    if (size_ % kBlock == 0) {
      // room first (doubling): a failure of push_back below must not leak the block
      if (blocks_.size() == blocks_.capacity()) blocks_.reserve(2 * blocks_.size() + 1);
      blocks_.push_back(static_cast<T*>(detail::map_pages(kBlock * sizeof(T))));
    }
    if (size_ % kPiece == 0) detail::populate_pages(blocks_.back() + size_ % kBlock, kPiece * sizeof(T));
    blocks_.back()[size_ % kBlock] = v;
    ++size_;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return blocks_[i / kBlock][i % kBlock]; }
  const T& operator[](std::size_t i) const { return blocks_[i / kBlock][i % kBlock]; }
  /// Writes f(value) to out[0 .. size()) in order, unmapping each block once copied; the array
  /// is empty afterwards.
  template <class Out, class F>
  void drain(Out* out, F f) {
    std::size_t at = 0;
    for (T*& b : blocks_) {
      const std::size_t m = std::min(kBlock, size_ - at);
      for (std::size_t k = 0; k < m; ++k) out[at + k] = f(b[k]);
      at += m;
      detail::unmap_pages(b, kBlock * sizeof(T));
      b = nullptr;
    }
    std::vector<T*>().swap(blocks_);
    size_ = 0;
  }
  template <class Out>
  void drain(Out* out) {
    drain(out, [](const T& v) { return v; });
  }

 private:
  void release() noexcept {
    for (T* b : blocks_)
      if (b) detail::unmap_pages(b, kBlock * sizeof(T));
    blocks_.clear();
    size_ = 0;
  }
  std::vector<T*> blocks_;
  std::size_t size_ = 0;
};

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// What reading a token as a number found.
enum class NumberStatus {
  ok,            ///< a finite double (a value below the smallest double reads as 0, as strtod rounds it)
  empty,         ///< nothing between the separators
  not_a_number,  ///< a word, a typo, "1,5", "0x1", ...
  not_finite,    ///< nan, inf, infinity (any case, any sign)
  too_large,     ///< beyond the range of a double (1e400)
};

namespace detail {
/// For a token std::from_chars read whole but called out of range: true when it is tiny (its
/// decimal exponent is negative: 1e-400, 0.000...1), false when it is huge (1e400).
inline bool out_of_range_is_tiny(std::string_view tok) {
  std::size_t i = 0;
  if (i < tok.size() && (tok[i] == '-' || tok[i] == '+')) ++i;
  long long exponent = 0;  // decimal exponent of the first non-zero digit
  bool seen = false, fraction = false;
  long long int_digits = 0, leading_zeros = 0;
  for (; i < tok.size() && tok[i] != 'e' && tok[i] != 'E'; ++i) {
    if (tok[i] == '.') {
      fraction = true;
      continue;
    }
    if (!seen && tok[i] == '0') {
      if (fraction) ++leading_zeros;
      continue;
    }
    if (!seen) seen = true;
    if (!fraction) ++int_digits;
  }
  exponent = int_digits > 0 ? int_digits - 1 : -(leading_zeros + 1);
  if (i < tok.size()) {  // the written exponent, saturated
    ++i;
    bool negative = false;
    if (i < tok.size() && (tok[i] == '-' || tok[i] == '+')) negative = tok[i++] == '-';
    long long e = 0;
    for (; i < tok.size(); ++i) e = e > 100000000 ? e : e * 10 + (tok[i] - '0');
    exponent += negative ? -e : e;
  }
  return exponent < 0;
}
}  // namespace detail

/// Reads a whole token as a finite double (accepts a leading '+'): the one number reader of the
/// text formats, so that every plugin tells the same things apart (number_problem words them).
inline NumberStatus read_double(std::string_view tok, double& out) {
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (b == e) return NumberStatus::empty;
  if (*b == '+') ++b;
  if (b == e) return NumberStatus::not_a_number;
  const auto r = std::from_chars(b, e, out);
  if (r.ptr != e || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) return NumberStatus::not_a_number;
  if (r.ec == std::errc::result_out_of_range) {
    if (!detail::out_of_range_is_tiny(std::string_view(b, static_cast<std::size_t>(e - b)))) return NumberStatus::too_large;
    out = *b == '-' ? -0.0 : 0.0;
    return NumberStatus::ok;
  }
  return out - out == 0.0 ? NumberStatus::ok : NumberStatus::not_finite;
}

/// Parses a whole token as a finite double: read_double(...) == ok.
inline bool parse_double(std::string_view tok, double& out) { return read_double(tok, out) == NumberStatus::ok; }

/// Shortens a token for an error message (at most 40 bytes, cut between UTF-8 characters;
/// bytes that are not UTF-8 shown as \xNN).
DUALGAP_API std::string quote_token(std::string_view tok);

/// The words for a token read_double refused, to which the caller adds where it is ("... for
/// feature 3", "... in column 2"): "empty value", "non-numeric value 'abc'", "non-finite value
/// 'nan'", "out-of-range value '1e400' (beyond 1.8e308 in magnitude)".
inline std::string number_problem(std::string_view tok, NumberStatus status) {
  switch (status) {
    case NumberStatus::empty: return "empty value";
    case NumberStatus::not_finite: return "non-finite value " + quote_token(tok);
    case NumberStatus::too_large: return "out-of-range value " + quote_token(tok) + " (beyond 1.8e308 in magnitude)";
    default: return "non-numeric value " + quote_token(tok);
  }
}

/// Parses a whole token as a non-negative integer.
inline bool parse_index(std::string_view tok, std::int64_t& out) {
  if (tok.empty()) return false;
  auto r = std::from_chars(tok.data(), tok.data() + tok.size(), out);
  return r.ec == std::errc() && r.ptr == tok.data() + tok.size() && out >= 0;
}

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

}  // namespace dualgap
