// The binary cache of a plugin's data (cache.hpp).
#include "data/cache.hpp"
#include "base/json_text.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "dualgap/parse.hpp"
#include "base/hash.hpp"
#include "base/util.hpp"

namespace fs = std::filesystem;

namespace dualgap {

namespace {

// The own parameters with every string naming an existing file replaced by the hash of its
// bytes, and every existing folder by its canonical path with the bytes of the files under it
// added to `files`: the key follows the content, not the spelling of a path.
json identity_of(const json& j, Hash64& files) {
  if (j.is_string()) {
    const std::string s = j;
    std::error_code ec;
    if (s.empty() || s.size() >= 4096 || !fs::exists(s, ec)) return j;
    if (fs::is_regular_file(s, ec)) return "file:" + hex64(hash64(read_raw_file(s)));
    if (fs::is_directory(s, ec)) {
      std::vector<fs::path> all;
      for (auto it = fs::recursive_directory_iterator(s, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file()) all.push_back(it->path());
      std::sort(all.begin(), all.end());
      for (auto& p : all) {
        files.add(fs::relative(p, s).string());
        const std::uint64_t h = hash64(read_raw_file(p.string()));
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

struct Writer {
  std::string out;
  template <class T>
  void pod(const T& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  template <class T>
  void vec(const T* p, std::size_t n) {
    pod(static_cast<std::uint64_t>(n));
    out.append(reinterpret_cast<const char*>(p), n * sizeof(T));
  }
  template <class T>
  void vec(const std::vector<T>& v) { vec(v.data(), v.size()); }
  void str(const std::string& s) { vec(s.data(), s.size()); }
};

struct CacheReader {
  std::string_view in;
  std::size_t pos = 0;
  bool ok = true;
  template <class T>
  bool pod(T& v) {
    if (!ok || in.size() - pos < sizeof v) return ok = false;
    std::memcpy(&v, in.data() + pos, sizeof v);
    pos += sizeof v;
    return true;
  }
  bool count(std::uint64_t& n, std::size_t elem) {
    if (!pod(n)) return false;
    if (n > (in.size() - pos) / elem) return ok = false;
    return true;
  }
  template <class T>
  bool vec(std::vector<T>& v) {
    std::uint64_t n;
    if (!count(n, sizeof(T))) return false;
    v.resize(n);
    if (n) std::memcpy(v.data(), in.data() + pos, n * sizeof(T));
    pos += n * sizeof(T);
    return true;
  }
  template <class T>
  bool raw(T* dst, std::uint64_t expected) {
    std::uint64_t n;
    if (!count(n, sizeof(T)) || n != expected) return ok = false;
    if (n) std::memcpy(dst, in.data() + pos, n * sizeof(T));
    pos += n * sizeof(T);
    return true;
  }
  bool str(std::string& s) {
    std::uint64_t n;
    if (!count(n, 1)) return false;
    s.assign(in.data() + pos, n);
    pos += n;
    return true;
  }
};

// Hashes what it is given, as Writer would store it (data_content_hash).
struct HashWriter {
  Hash64 h;
  template <class T>
  void pod(const T& v) { h.add(&v, sizeof v); }
  template <class T>
  void vec(const T* p, std::size_t n) {
    pod(static_cast<std::uint64_t>(n));
    h.add(p, n * sizeof(T));
  }
  template <class T>
  void vec(const std::vector<T>& v) { vec(v.data(), v.size()); }
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
    SparseMatrix S = e.X.sparse();
    S.makeCompressed();
    w.vec(S.outerIndexPtr(), static_cast<std::size_t>(S.rows() + 1));
    w.vec(S.innerIndexPtr(), static_cast<std::size_t>(S.nonZeros()));
    w.vec(S.valuePtr(), static_cast<std::size_t>(S.nonZeros()));
  }
}

bool read_examples(CacheReader& r, Examples& e) {
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
    if (n) std::memcpy(D.data(), r.in.data() + r.pos, n * sizeof(double));
    r.pos += n * sizeof(double);
    e.X = FeatureMatrix(std::move(D));
  } else {
    std::vector<int> outer;
    if (!r.vec(outer) || outer.size() != static_cast<std::size_t>(rows) + 1 || outer.front() != 0) return false;
    for (std::size_t i = 0; i + 1 < outer.size(); ++i)
      if (outer[i + 1] < outer[i]) return false;
    const auto nnz = static_cast<std::uint64_t>(outer.back());
    SparseMatrix S(rows, cols);
    S.resizeNonZeros(static_cast<Eigen::Index>(nnz));
    std::memcpy(S.outerIndexPtr(), outer.data(), outer.size() * sizeof(int));
    if (!r.raw(S.innerIndexPtr(), nnz) || !r.raw(S.valuePtr(), nnz)) return false;
    for (std::uint64_t q = 0; q < nnz; ++q)
      if (S.innerIndexPtr()[q] < 0 || S.innerIndexPtr()[q] >= cols) return false;
    e.X = FeatureMatrix(std::move(S));
  }
  return true;
}

}  // namespace

std::string data_content_hash(const Data& data) {
  HashWriter w;
  write_examples(w, data.train);
  write_examples(w, data.test);
  return w.h.hex();
}

std::string serialize_data(const Data& data, std::uint64_t key) {
  Writer p;
  p.str(data.name);
  p.str(json_text(data.source));
  write_examples(p, data.train);
  write_examples(p, data.test);
  Writer w;
  w.out.reserve(p.out.size() + 48);
  w.out.append(kMagic, sizeof kMagic);
  w.pod(kDataCacheVersion);
  w.pod(static_cast<std::uint32_t>(0));
  w.pod(key);
  w.pod(static_cast<std::uint64_t>(p.out.size()));
  w.pod(hash64(p.out));
  w.out += p.out;
  return std::move(w.out);
}

bool deserialize_data(std::string_view bytes, std::uint64_t key, Data& out) {
  CacheReader h{bytes};
  char magic[8];
  std::uint32_t version, reserved;
  std::uint64_t k, size, sum;
  if (bytes.size() < sizeof magic) return false;
  std::memcpy(magic, bytes.data(), sizeof magic);
  h.pos = sizeof magic;
  if (std::memcmp(magic, kMagic, sizeof magic) != 0) return false;
  if (!h.pod(version) || !h.pod(reserved) || !h.pod(k) || !h.pod(size) || !h.pod(sum)) return false;
  if (version != kDataCacheVersion || k != key || size != bytes.size() - h.pos) return false;
  const std::string_view payload = bytes.substr(h.pos);
  if (hash64(payload) != sum) return false;
  CacheReader r{payload};
  Data d;
  std::string source;
  if (!r.str(d.name) || !r.str(source) || !read_examples(r, d.train) || !read_examples(r, d.test)) return false;
  d.source = json::parse(source, nullptr, false);
  if (d.source.is_discarded()) return false;
  if (r.pos != payload.size()) return false;
  try {
    d.train.check("cache");
    if (d.test.X.rows() > 0) d.test.check("cache");
  } catch (const std::exception&) {
    return false;
  }
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
        if (deserialize_data(read_raw_file(path), key, d)) {
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
    write_file_atomic(cache_path(cache_dir, plugin, key), serialize_data(d, key));  // temp file, fsync, rename
  } catch (const std::exception&) {
    ok = false;
  }
  set_source_field(d, "cache", ok ? "stored" : "write failed");
  return d;
}

}  // namespace dualgap
