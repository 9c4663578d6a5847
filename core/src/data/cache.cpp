// The binary cache of a plugin's data (cache.hpp).
#include "data/cache.hpp"
#include "base/json_text.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "dualgap/parse.hpp"
#include "base/files.hpp"
#include "base/hash.hpp"
#include "base/util.hpp"

namespace fs = std::filesystem;

namespace dualgap {

namespace {

/// file_hash64, a failure as a DataError (the data's file could not be read).
std::uint64_t data_file_hash64(const std::string& path) {
  try {
    return file_hash64(path);
  } catch (const FileError& e) {
    throw DataError(e.what());
  }
}

// The own parameters with every string naming an existing file replaced by the hash of its
// bytes, and every existing folder by its canonical path with the bytes of the files under it
// added to `files`: the key follows the content, not the spelling of a path.
json identity_of(const json& j, Hash64& files) {
  if (j.is_string()) {
    const std::string s = j;
    std::error_code ec;
    if (s.empty() || s.size() >= 4096 || !fs::exists(s, ec)) return j;
    if (fs::is_regular_file(s, ec)) return "file:" + hex64(data_file_hash64(s));
    if (fs::is_directory(s, ec)) {
      std::vector<fs::path> all;
      for (auto it = fs::recursive_directory_iterator(s, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file()) all.push_back(it->path());
      std::sort(all.begin(), all.end());
      for (auto& p : all) {
        files.add(fs::relative(p, s).string());
        const std::uint64_t h = data_file_hash64(p.string());
        files.add(&h, sizeof h);
      }
      return "dir:" + fs::weakly_canonical(s, ec).string();
    }
    return j;
  }
  if (j.is_object() || j.is_array()) {
    json out = j;
    for (auto& v : out) v = identity_of(v, files);
    return out;
  }
  return j;
}

void set_source_field(Data& d, const char* key, const std::string& value) {
  if (!d.source.is_object()) d.source = d.source.is_null() ? json::object() : json{{"description", d.source}};
  d.source[key] = value;
}

}  // namespace

std::uint64_t data_cache_key(const std::string& plugin, const std::string& plugin_path, const json& own_params,
                             const std::uint64_t* seed) {
  Hash64 h;
  h.add(plugin + "\n" + std::to_string(kDataCacheVersion) + "\n");
  if (!plugin_path.empty()) h.add(file_hash_hex(plugin_path));
  Hash64 files;
  h.add(json_text(identity_of(own_params, files)));
  const std::uint64_t f = files.value();
  h.add(&f, sizeof f);
  if (seed) h.add(seed, sizeof *seed);
  return h.value();
}

std::string cache_path(const std::string& cache_dir, const std::string& plugin, std::uint64_t key) {
  return (fs::path(cache_dir) / (plugin + "-" + hex64(key) + ".dgcache")).string();
}

namespace {

constexpr char kMagic[8] = {'D', 'G', 'C', 'A', 'C', 'H', 'E', '\0'};
// magic, version, reserved, key, payload size, payload hash
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8 + 8;

// Where serialized bytes go: a string (serialize_data), a hash (the payload's checksum and
// data_content_hash) or the cache file itself, so that storing the cache never holds a second
// copy of the data.
struct StringSink {
  std::string out;
  void append(const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
};
struct HashSink {
  Hash64 h;
  std::uint64_t size = 0;
  void append(const void* p, std::size_t n) {
    h.add(p, n);
    size += n;
  }
};
struct FileSink {  // AtomicFile gathers small pieces and writes large ones straight through
  AtomicFile& file;
  void append(const void* p, std::size_t n) { file.write(std::string_view(static_cast<const char*>(p), n)); }
};

template <class Sink>
struct Writer {
  Sink& sink;
  template <class T>
  void pod(const T& v) { sink.append(&v, sizeof v); }
  template <class T>
  void vec(const T* p, std::size_t n) {
    pod(static_cast<std::uint64_t>(n));
    if (n) sink.append(p, n * sizeof(T));
  }
  template <class T>
  void vec(const std::vector<T>& v) { vec(v.data(), v.size()); }
  void str(const std::string& s) { vec(s.data(), s.size()); }
};

// Where deserialized bytes come from: bytes in memory (deserialize_data) or the cache file, read
// straight into the arrays of the data (hashed as they pass, checked at the end).
struct MemorySource {
  std::string_view in;
  std::size_t pos = 0;
  std::uint64_t remaining() const { return in.size() - pos; }
  bool read(void* dst, std::size_t n) {
    if (remaining() < n) return false;
    if (n) std::memcpy(dst, in.data() + pos, n);
    pos += n;
    return true;
  }
};
struct FileSource {
  int fd;
  const std::string& path;
  std::uint64_t left;  // payload bytes not read yet
  Hash64 h;
  std::uint64_t remaining() const { return left; }
  bool read(void* dst, std::size_t n) {
    if (left < n || read_fully(fd, dst, n, path) != n) return false;
    h.add(dst, n);
    left -= n;
    return true;
  }
};

template <class Source>
struct CacheReader {
  Source& src;
  bool ok = true;
  template <class T>
  bool pod(T& v) {
    if (!ok || !src.read(&v, sizeof v)) return ok = false;
    return true;
  }
  bool count(std::uint64_t& n, std::size_t elem) {
    if (!pod(n)) return false;
    if (n > src.remaining() / elem) return ok = false;
    return true;
  }
  template <class T>
  bool vec(std::vector<T>& v) {
    std::uint64_t n;
    if (!count(n, sizeof(T))) return false;
    v.resize(n);
    return bytes(v.data(), n * sizeof(T));
  }
  template <class T>
  bool raw(T* dst, std::uint64_t expected) {
    std::uint64_t n;
    if (!count(n, sizeof(T)) || n != expected) return ok = false;
    return bytes(dst, n * sizeof(T));
  }
  bool bytes(void* dst, std::uint64_t n) {
    if (!ok || !src.read(dst, n)) return ok = false;
    return true;
  }
  bool str(std::string& s) {
    std::uint64_t n;
    if (!count(n, 1)) return false;
    s.resize(n);
    return bytes(s.data(), n);
  }
};

// One layout for the cache file and the content hash: what the cache stores of a split is what
// identifies it.
template <class W>
void write_examples(W& w, const Examples& e) {
  w.pod(static_cast<std::int32_t>(e.num_classes));
  w.vec(e.y);
  w.vec(e.unit_offset);
  w.vec(e.edge_offset);
  std::vector<std::int32_t> edges;
  edges.reserve(e.edges.size() * 2);
  for (auto [a, b] : e.edges) {
    edges.push_back(a);
    edges.push_back(b);
  }
  w.vec(edges);
  w.vec(e.group);
  const bool sparse = e.X.is_sparse();
  w.pod(static_cast<std::uint8_t>(sparse));
  w.pod(static_cast<std::int64_t>(e.X.rows()));
  w.pod(static_cast<std::int64_t>(e.X.cols()));
  if (!sparse) {
    w.vec(e.X.dense().data(), static_cast<std::size_t>(e.X.dense().size()));
  } else {
    // The stored arrays are those of the compressed form: a copy only for a matrix that is not
    // (no plugin here returns one; a copy of a large matrix doubles the data while it is written).
    const SparseMatrix& X = e.X.sparse();
    SparseMatrix copy;
    if (!X.isCompressed()) {
      copy = X;
      copy.makeCompressed();
    }
    const SparseMatrix& S = X.isCompressed() ? X : copy;
    w.vec(S.outerIndexPtr(), static_cast<std::size_t>(S.rows() + 1));
    w.vec(S.innerIndexPtr(), static_cast<std::size_t>(S.nonZeros()));
    w.vec(S.valuePtr(), static_cast<std::size_t>(S.nonZeros()));
  }
}

template <class R>
bool read_examples(R& r, Examples& e) {
  std::int32_t k;
  if (!r.pod(k)) return false;
  e.num_classes = k;
  std::vector<std::int32_t> edges;
  if (!r.vec(e.y) || !r.vec(e.unit_offset) || !r.vec(e.edge_offset) || !r.vec(edges) || !r.vec(e.group)) return false;
  if (edges.size() % 2) return false;
  e.edges.resize(edges.size() / 2);
  for (std::size_t i = 0; i < e.edges.size(); ++i) e.edges[i] = {edges[2 * i], edges[2 * i + 1]};
  std::uint8_t sparse;
  std::int64_t rows, cols;
  if (!r.pod(sparse) || !r.pod(rows) || !r.pod(cols) || rows < 0 || cols < 0 || sparse > 1) return false;
  if (!sparse) {
    std::uint64_t n;
    if (!r.count(n, sizeof(double)) || n != static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols)) return false;
    DenseMatrix D(rows, cols);
    if (!r.bytes(D.data(), n * sizeof(double))) return false;
    e.X = FeatureMatrix(std::move(D));
  } else {
    std::uint64_t n;
    if (!r.count(n, sizeof(int)) || n != static_cast<std::uint64_t>(rows) + 1) return false;
    SparseMatrix S(rows, cols);
    if (!r.bytes(S.outerIndexPtr(), n * sizeof(int)) || S.outerIndexPtr()[0] != 0) return false;
    for (std::int64_t i = 0; i < rows; ++i)
      if (S.outerIndexPtr()[i + 1] < S.outerIndexPtr()[i]) return false;
    const auto nnz = static_cast<std::uint64_t>(S.outerIndexPtr()[rows]);
    if (nnz > r.src.remaining() / (sizeof(int) + sizeof(double))) return false;
    S.resizeNonZeros(static_cast<Eigen::Index>(nnz));
    if (!r.raw(S.innerIndexPtr(), nnz) || !r.raw(S.valuePtr(), nnz)) return false;
    for (std::uint64_t q = 0; q < nnz; ++q)
      if (S.innerIndexPtr()[q] < 0 || S.innerIndexPtr()[q] >= cols) return false;
    e.X = FeatureMatrix(std::move(S));
  }
  return true;
}

template <class Sink>
void write_payload(Sink& sink, const Data& data, const std::string& source) {
  Writer<Sink> w{sink};
  w.str(data.name);
  w.str(source);
  write_examples(w, data.train);
  write_examples(w, data.test);
}

/// The cache file's bytes, to `sink`: the header (with the payload's size and hash, from a first
/// pass that only hashes), then the payload.
template <class Sink>
void write_cache(Sink& sink, const Data& data, std::uint64_t key) {
  const std::string source = json_text(data.source);
  HashSink hash;
  write_payload(hash, data, source);
  Writer<Sink> w{sink};
  sink.append(kMagic, sizeof kMagic);
  w.pod(kDataCacheVersion);
  w.pod(static_cast<std::uint32_t>(0));
  w.pod(key);
  w.pod(hash.size);
  w.pod(hash.h.value());
  write_payload(sink, data, source);
}

/// Checks a header; on success `size` and `sum` are the payload's size and hash.
bool read_header(const char* h, std::uint64_t key, std::uint64_t& size, std::uint64_t& sum) {
  if (std::memcmp(h, kMagic, sizeof kMagic) != 0) return false;
  std::uint32_t version;
  std::uint64_t k;
  std::memcpy(&version, h + 8, sizeof version);
  std::memcpy(&k, h + 16, sizeof k);
  std::memcpy(&size, h + 24, sizeof size);
  std::memcpy(&sum, h + 32, sizeof sum);
  return version == kDataCacheVersion && k == key;
}

/// The payload read through `r` into a Data (not yet checked against the hash).
template <class R>
bool read_payload(R& r, Data& d) {
  std::string source;
  if (!r.str(d.name) || !r.str(source) || !read_examples(r, d.train) || !read_examples(r, d.test)) return false;
  d.source = json::parse(source, nullptr, false);
  return !d.source.is_discarded() && r.src.remaining() == 0;
}

bool checked(Data& d) {
  try {
    d.train.check("cache");
    if (d.test.X.rows() > 0) d.test.check("cache");
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

/// The cache file at `path` read straight into `out` (no copy of its bytes): false when it is
/// not a cache of `key`, is cut short, corrupt or fails its hash; `out` is then left as it was.
bool read_cache_file(const std::string& path, std::uint64_t key, Data& out) {
  const Fd fd = open_regular_file(path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return false;
  char header[kHeaderBytes];
  std::uint64_t size, sum;
  if (read_fully(fd.get(), header, sizeof header, path) != sizeof header || !read_header(header, key, size, sum)) return false;
  if (static_cast<std::uint64_t>(st.st_size) != kHeaderBytes + size) return false;
  FileSource src{fd.get(), path, size, {}};
  CacheReader<FileSource> r{src};
  Data d;
  if (!read_payload(r, d) || src.h.value() != sum || !checked(d)) return false;
  out = std::move(d);
  return true;
}

}  // namespace

std::string data_content_hash(const Data& data) {
  HashSink hash;
  Writer<HashSink> w{hash};
  write_examples(w, data.train);
  write_examples(w, data.test);
  return hash.h.hex();
}

std::string serialize_data(const Data& data, std::uint64_t key) {
  StringSink out;
  write_cache(out, data, key);
  return std::move(out.out);
}

bool deserialize_data(std::string_view bytes, std::uint64_t key, Data& out) {
  std::uint64_t size, sum;
  if (bytes.size() < kHeaderBytes || !read_header(bytes.data(), key, size, sum)) return false;
  const std::string_view payload = bytes.substr(kHeaderBytes);
  if (size != payload.size() || hash64(payload) != sum) return false;
  MemorySource src{payload};
  CacheReader<MemorySource> r{src};
  Data d;
  if (!read_payload(r, d) || !checked(d)) return false;
  out = std::move(d);
  return true;
}

Data load_with_cache(const std::string& cache_dir, const std::string& plugin, std::uint64_t key,
                     const std::function<Data()>& load) {
  Data d;
  if (!cache_dir.empty()) {
    const std::string path = cache_path(cache_dir, plugin, key);
    std::error_code ec;
    if (fs::exists(path, ec)) {
      try {
        if (read_cache_file(path, key, d)) {
          set_source_field(d, "cache", "hit");
          return d;
        }
      } catch (const std::exception&) {  // unreadable: load again
      }
    }
  }
  d = load();
  set_source_field(d, "cache", "off");  // also what the stored copy says; a hit overwrites it
  if (cache_dir.empty()) return d;
  bool ok = true;
  try {
    fs::create_directories(cache_dir);
    AtomicFile file(cache_path(cache_dir, plugin, key));  // temp file, fsync, rename
    FileSink sink{file};
    write_cache(sink, d, key);
    file.commit();
  } catch (const std::exception&) {
    ok = false;
  }
  set_source_field(d, "cache", ok ? "stored" : "write failed");
  return d;
}

}  // namespace dualgap
