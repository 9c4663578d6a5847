// Finding, reading and decompressing data files; error messages that name the file and line
// (dualgap/parse.hpp).
#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/device/array.hpp>
#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "data/decompress.hpp"
#include "data/fetch/registry.hpp"
#include "dualgap/parse.hpp"
#include "base/files.hpp"
#include "base/util.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace dualgap {

DataError data_error(const std::string& file, std::size_t line, const std::string& message) {
  // printable: a message must stay valid UTF-8 to reach run.json (a Latin-1 file name or token)
  if (line > 0) return DataError(printable(file + ":" + std::to_string(line) + ": " + message));
  return DataError(printable(file + ": " + message));
}

const char* to_string(Compression c) {
  switch (c) {
    case Compression::gzip: return "gzip";
    case Compression::bzip2: return "bzip2";
    default: return "none";
  }
}

std::string file_name(const std::string& path) {
  auto p = path.find_last_of('/');
  return p == std::string::npos ? path : path.substr(p + 1);
}

std::string quote_token(std::string_view tok) {
  // Cut at 40 bytes but not inside a UTF-8 character, and escape bytes that are not UTF-8 (a
  // Latin-1 label): the message must stay valid UTF-8 to reach run.json.
  std::size_t cut = std::min<std::size_t>(tok.size(), 40);
  for (int k = 0; k < 3 && cut < tok.size() && cut > 0 && (static_cast<unsigned char>(tok[cut]) & 0xC0) == 0x80; ++k) --cut;
  return "'" + printable(tok.substr(0, cut)) + (cut < tok.size() ? "..." : "") + "'";
}

// ---------------------------------------------------------------------------------------------
// Files

namespace {

const char* kDataHelp =
    "shared/data/README.md describes every shared dataset, its files and where it comes from";

/// Folder of a path relative to the DUALGAP_DATA root ("usps" for .../usps/zip.train.gz).
std::string dataset_section(const std::string& path, const std::string& root) {
  if (root.empty()) return "";
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  if (path.compare(0, r.size(), r) != 0 || path.size() <= r.size() || path[r.size()] != '/') return "";
  std::string rest = path.substr(r.size() + 1);
  auto slash = rest.find('/');
  return slash == std::string::npos ? "" : rest.substr(0, slash);
}

std::string section_hint(const std::string& section) {
  if (section.empty()) return std::string(" (") + kDataHelp + ")";
  return " (see the '" + section + "' section of shared/data/README.md for the files and their provenance)";
}

}  // namespace

std::string resolve_data_path(const std::string& path_in, const std::string& role) {
  const std::string who = role.empty() ? "" : role + " file ";
  const char* env_root = std::getenv("DUALGAP_DATA");
  const std::string root = env_root ? env_root : "";
  bool used_data_var = path_in.find("${DUALGAP_DATA}") != std::string::npos;
  if (auto open = path_in.find("${"); open != std::string::npos && path_in.find('}', open) == std::string::npos)
    throw DataError(who + "'" + path_in + "': unterminated '${' in path");
  const std::string out = expand_env_vars(path_in, [&](const std::string& var) {
    std::string msg = who + "'" + path_in + "': the environment variable " + var + " is not set";
    if (var == "DUALGAP_DATA") {
      // Name the dataset folder when the path reads ${DUALGAP_DATA}/<folder>/...
      std::string rest = path_in.substr(path_in.find("${DUALGAP_DATA}") + 15);
      while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
      auto slash = rest.find('/');
      msg += "; set DUALGAP_DATA to the shared data folder (export DUALGAP_DATA=<repo>/shared/data)" +
             section_hint(slash == std::string::npos ? "" : rest.substr(0, slash)) + datafetch::fetch_hint(path_in);
    }
    throw DataError(msg);
  });
  std::error_code ec;
  if (fs::is_directory(out, ec)) throw DataError(who + out + ": is a directory, expected a data file");
  if (!fs::exists(out, ec)) {
    std::string msg = who + out + ": no such file" + datafetch::fetch_hint(out);
    const std::string section = dataset_section(out, root);
    if (used_data_var || !section.empty()) {
      msg += "; the path is under DUALGAP_DATA=" + root +
             ": check that DUALGAP_DATA points to the shared data folder" + section_hint(section);
    } else if (root.empty()) {
      msg += "; if this is one of the shared datasets, set DUALGAP_DATA to the shared data folder and "
             "write the path as ${DUALGAP_DATA}/<dataset>/<file>" + section_hint("");
    } else {
      msg += " (DUALGAP_DATA=" + root + "; shared datasets are written ${DUALGAP_DATA}/<dataset>/<file>)";
    }
    throw DataError(msg);
  }
  return out;
}

std::string read_raw_file(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) resolve_data_path(path);  // throws the explanatory message
  try {
    return read_file(path);  // a FIFO, device or folder is refused, never waited on
  } catch (const FileError& e) {
    throw DataError(e.what());
  }
}

Compression detect_compression(std::string_view b) {
  if (b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b)
    return Compression::gzip;
  if (b.size() >= 3 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h') return Compression::bzip2;
  return Compression::none;
}

std::string decompress(std::string bytes, const std::string& file, std::uintmax_t max_bytes, std::string_view limit) {
  namespace io = boost::iostreams;
  const Compression c = detect_compression(bytes);
  if (c == Compression::none) return bytes;
  std::string out;
  out.reserve(std::min<std::uintmax_t>(bytes.size() * 4, max_bytes));
  try {
    io::filtering_istream in;
    if (c == Compression::gzip) in.push(io::gzip_decompressor());
    else in.push(io::bzip2_decompressor());
    in.push(io::array_source(bytes.data(), bytes.size()));
    std::vector<char> buf(1 << 16);
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      out.append(buf.data(), static_cast<std::size_t>(in.gcount()));
      if (out.size() > max_bytes) break;
    }
    if (in.bad()) throw std::runtime_error("stream error");
  } catch (const std::exception& e) {
    throw DataError(file + ": corrupt or truncated " + to_string(c) + " data (" + e.what() + ")");
  }
  if (out.size() > max_bytes)
    throw DataError(fmt::format("{}: more than {} bytes once decompressed: larger than {}", file, max_bytes, limit));
  return out;
}

std::string decompress(std::string bytes, const std::string& file) {
  return decompress(std::move(bytes), file, std::numeric_limits<std::uintmax_t>::max(), "");
}

std::string read_data_file(const std::string& path) { return decompress(read_raw_file(path), path); }

// ---------------------------------------------------------------------------------------------
// BlockArray's pages

// A block is mapped without its pages; push_back asks for each piece's pages just before writing
// it. Faulting a piece's pages in one call instead of one trap per 4 KB page takes a sixth off a
// LIBSVM load on a virtual machine (bench/scale/parse.sh; docs/data.md, "Parse speed against
// LIBLINEAR"), and a piece rather than the whole block keeps the last block's unused pages
// untouched, which keeps the peak at the values' size (bench/scale/memory.sh). Before Linux 5.14
// the call fails (EINVAL) and the pages fault one by one as they are written: slower, as correct.
void* detail::map_pages(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void detail::populate_pages(void* p, std::size_t bytes) noexcept {
#ifdef MADV_POPULATE_WRITE
  static_cast<void>(::madvise(p, bytes, MADV_POPULATE_WRITE));
#else
  static_cast<void>(p), static_cast<void>(bytes);
#endif
}

void detail::unmap_pages(void* p, std::size_t bytes) noexcept { ::munmap(p, bytes); }

// ---------------------------------------------------------------------------------------------
// TextReader

/// Where a TextReader's bytes come from: the file itself, or a decompressor reading it.
struct TextReader::Source {
  /// A Boost.Iostreams source over the open file (no copy of its bytes).
  struct FdSource {
    using char_type = char;
    using category = boost::iostreams::source_tag;
    int fd;
    std::streamsize read(char* s, std::streamsize n) {
      for (;;) {
        const ssize_t r = ::read(fd, s, static_cast<std::size_t>(n));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw std::runtime_error(system_reason(errno));
        return r == 0 ? -1 : static_cast<std::streamsize>(r);
      }
    }
  };
  Fd fd;
  boost::iostreams::filtering_istream in;  // compressed files only
};

TextReader::TextReader(const std::string& path, std::size_t piece_bytes)
    : path_(path), src_(std::make_unique<Source>()) {
  namespace io = boost::iostreams;
  {
    std::error_code ec;
    if (!fs::exists(path, ec)) resolve_data_path(path);  // throws the explanatory message
  }
  char magic[3] = {0, 0, 0};
  std::size_t got = 0;
  std::uintmax_t file_bytes = 0;
  try {
    src_->fd = open_regular_file(path);  // a FIFO, device or folder is refused, never waited on
    struct stat st {};
    if (::fstat(src_->fd.get(), &st) == 0 && st.st_size > 0) file_bytes = static_cast<std::uintmax_t>(st.st_size);
    got = read_fully(src_->fd.get(), magic, sizeof magic, path);
  } catch (const FileError& e) {
    throw DataError(e.what());
  }
  compression_ = detect_compression(std::string_view(magic, got));
  // The piece buffer: a plain file needs no more than its size (+1 for the end), a compressed
  // one starts at a few times its size; either grows when one line fills it. A small file
  // (the fuzzers' inputs, a test's) does not cost a 4 MB buffer.
  const std::uintmax_t want = compression_ == Compression::none ? file_bytes + 1 : 4 * file_bytes + 64;
  cap_ = static_cast<std::size_t>(std::clamp<std::uintmax_t>(want, 64, std::max<std::size_t>(piece_bytes, 64)));
  buf_.reset(new char[cap_]);
  if (compression_ == Compression::none) {
    std::copy(magic, magic + got, buf_.get());  // a regular file: no need to seek back
    end_ = got;
    bytes_ = got;
  } else {
    if (::lseek(src_->fd.get(), 0, SEEK_SET) != 0) throw DataError(path + ": cannot read: " + system_reason(errno));
    if (compression_ == Compression::gzip) src_->in.push(io::gzip_decompressor());
    else src_->in.push(io::bzip2_decompressor());
    src_->in.push(Source::FdSource{src_->fd.get()});
  }
  refill();
  if (end_ >= 3 && std::memcmp(buf_.get(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
}

TextReader::~TextReader() = default;

void TextReader::refill() {
  const std::size_t keep = end_ - pos_;
  if (pos_ > 0 && keep > 0) std::memmove(buf_.get(), buf_.get() + pos_, keep);
  pos_ = 0;
  end_ = keep;
  if (end_ == cap_) {  // one line fills the buffer
    std::unique_ptr<char[]> bigger(new char[2 * cap_]);
    std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ *= 2;
  }
  const std::size_t before = end_;
  while (end_ < cap_ && !eof_) {
    std::size_t n = 0;
    if (compression_ == Compression::none) {
      const ssize_t r = ::read(src_->fd.get(), buf_.get() + end_, cap_ - end_);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw DataError(path_ + ": cannot read: " + system_reason(errno));
      n = static_cast<std::size_t>(r);
    } else {
      // As decompress(): an error of the stream (corrupt or cut short) is a DataError naming the file.
      try {
        src_->in.read(buf_.get() + end_, static_cast<std::streamsize>(cap_ - end_));
        n = static_cast<std::size_t>(src_->in.gcount());
        if (src_->in.bad()) throw std::runtime_error("stream error");
      } catch (const std::exception& e) {
        throw DataError(path_ + ": corrupt or truncated " + to_string(compression_) + " data (" + e.what() + ")");
      }
      if (n == 0 && !src_->in) eof_ = true;
    }
    if (n == 0) eof_ = true;
    end_ += n;
  }
  bytes_ += end_ - before;
}


RawFiles read_files(const std::vector<std::pair<std::string, std::string>>& files) {
  RawFiles raw;
  for (const auto& [path, role] : files) {
    if (path.empty()) continue;
    raw.paths.push_back(resolve_data_path(path, role));
    raw.bytes.push_back(read_raw_file(raw.paths.back()));
  }
  return raw;
}

}  // namespace dualgap
