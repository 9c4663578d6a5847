// Shared helpers of the dataset plugins (see dualgap/data_utils.hpp).
#include "dualgap/data_utils.hpp"
#include "util.hpp"
#include "hash.hpp"

#include "datafetch/registry.hpp"

#include <algorithm>
#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/device/array.hpp>
#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <unistd.h>

#include "util.hpp"

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
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!fs::exists(path, ec)) resolve_data_path(path);  // throws the explanatory message
    throw DataError(path + ": cannot open the file for reading");
  }
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(in.tellg());
  in.seekg(0, std::ios::beg);
  std::string bytes(size, '\0');
  if (size > 0 && !in.read(bytes.data(), static_cast<std::streamsize>(size)))
    throw DataError(path + ": read error");
  return bytes;
}

Compression detect_compression(std::string_view b) {
  if (b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b)
    return Compression::gzip;
  if (b.size() >= 3 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h') return Compression::bzip2;
  return Compression::none;
}

std::string decompress(std::string bytes, const std::string& file) {
  namespace io = boost::iostreams;
  const Compression c = detect_compression(bytes);
  if (c == Compression::none) return bytes;
  std::string out;
  out.reserve(bytes.size() * 4);
  try {
    io::filtering_istream in;
    if (c == Compression::gzip) in.push(io::gzip_decompressor());
    else in.push(io::bzip2_decompressor());
    in.push(io::array_source(bytes.data(), bytes.size()));
    std::vector<char> buf(1 << 16);
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      out.append(buf.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) throw std::runtime_error("stream error");
  } catch (const std::exception& e) {
    throw DataError(file + ": corrupt or truncated " + to_string(c) + " data (" + e.what() + ")");
  }
  return out;
}

std::string read_data_file(const std::string& path) { return decompress(read_raw_file(path), path); }

std::uint64_t checksum64(const void* data, std::size_t n, std::uint64_t seed) { return hash64(data, n, seed); }

std::uint64_t file_checksum(const std::string& path) { return checksum64(read_raw_file(path)); }

// ---------------------------------------------------------------------------------------------
// Labels

namespace {
std::string number_name(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the short form when it round-trips (6 instead of 6.0000 or 6.0000000000000000).
  char s[64];
  std::snprintf(s, sizeof s, "%g", v);
  return std::strtod(s, nullptr) == v ? std::string(s) : std::string(buf);
}
}  // namespace

LabelMap LabelMap::build(const std::vector<std::string>& tokens) {
  LabelMap m;
  std::vector<double> vals;
  vals.reserve(tokens.size());
  for (auto& t : tokens) {
    double v;
    if (!parse_double(t, v)) {
      m.numeric_ = false;
      break;
    }
    vals.push_back(v);
  }
  if (m.numeric_) {
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    m.values_ = vals;
    for (double v : vals) m.names_.push_back(number_name(v));
  } else {
    m.names_ = tokens;
    std::sort(m.names_.begin(), m.names_.end());
    m.names_.erase(std::unique(m.names_.begin(), m.names_.end()), m.names_.end());
  }
  return m;
}

int LabelMap::index(std::string_view token) const {
  if (numeric_) {
    double v;
    if (!parse_double(token, v)) return -1;
    auto it = std::lower_bound(values_.begin(), values_.end(), v);
    return (it != values_.end() && *it == v) ? static_cast<int>(it - values_.begin()) : -1;
  }
  auto it = std::lower_bound(names_.begin(), names_.end(), token,
                             [](const std::string& a, std::string_view b) { return std::string_view(a) < b; });
  return (it != names_.end() && *it == token) ? static_cast<int>(it - names_.begin()) : -1;
}

int LabelCollector::add(std::string_view token) {
  if (last_id_ >= 0 && token == last_) return last_id_;
  int id = -1;
  for (std::size_t k = 0; k < tokens_.size(); ++k)
    if (tokens_[k] == token) {
      id = static_cast<int>(k);
      break;
    }
  if (id < 0) {
    tokens_.emplace_back(token);
    id = static_cast<int>(tokens_.size()) - 1;
  }
  last_.assign(token);
  last_id_ = id;
  return id;
}

std::vector<std::int64_t> class_counts(const Examples& ex) {
  std::vector<std::int64_t> c(static_cast<std::size_t>(std::max(ex.num_classes, 0)), 0);
  for (int y : ex.y)
    if (y >= 0 && y < ex.num_classes) ++c[static_cast<std::size_t>(y)];
  return c;
}

// ---------------------------------------------------------------------------------------------
// Splits and subsampling

namespace {
int example_class(const Examples& ex, std::size_t i) {
  return ex.y[static_cast<std::size_t>(ex.unit_begin(i))];
}
}  // namespace

std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_indices(
    const Examples& ex, double test_fraction, std::uint64_t seed, bool stratified, bool by_group) {
  if (!(test_fraction >= 0.0 && test_fraction <= 1.0))
    throw DataError("test_fraction must be in [0, 1], got " + std::to_string(test_fraction));
  const std::size_t n = ex.num_examples();
  SplitMix64 rng(seed);
  std::vector<char> in_test(n, 0);
  if (by_group) {
    if (ex.group.size() != n) throw DataError("split_by_group: the data set has no group ids");
    std::vector<int> groups(ex.group.begin(), ex.group.end());
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    shuffle(groups, rng);
    std::map<int, std::size_t> size;
    for (int g : ex.group) ++size[g];
    const double target = test_fraction * static_cast<double>(n);
    std::size_t taken = 0;
    std::vector<int> test_groups;
    for (int g : groups) {
      // Take a group while it brings the test size closer to the target.
      const double before = std::abs(static_cast<double>(taken) - target);
      const double after = std::abs(static_cast<double>(taken + size[g]) - target);
      if (after < before) {
        taken += size[g];
        test_groups.push_back(g);
      }
    }
    std::sort(test_groups.begin(), test_groups.end());
    for (std::size_t i = 0; i < n; ++i)
      in_test[i] = std::binary_search(test_groups.begin(), test_groups.end(), ex.group[i]) ? 1 : 0;
  } else if (stratified) {
    std::vector<std::vector<std::size_t>> by_class(static_cast<std::size_t>(std::max(ex.num_classes, 1)));
    for (std::size_t i = 0; i < n; ++i) by_class[static_cast<std::size_t>(example_class(ex, i))].push_back(i);
    // Largest-remainder allocation: the test set has exactly round(test_fraction * n) examples
    // and each class floor or ceil of test_fraction * count (ties: lower class index first).
    const std::size_t K = by_class.size();
    std::vector<std::size_t> take(K);
    std::vector<std::pair<double, std::size_t>> rem;
    std::size_t total = 0;
    for (std::size_t k = 0; k < K; ++k) {
      const double want = test_fraction * static_cast<double>(by_class[k].size());
      take[k] = static_cast<std::size_t>(std::floor(want));
      total += take[k];
      rem.emplace_back(-(want - std::floor(want)), k);
    }
    std::sort(rem.begin(), rem.end());
    const auto target = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(n)));
    for (std::size_t r = 0; total < target && r < rem.size(); ++r)
      if (take[rem[r].second] < by_class[rem[r].second].size()) {
        ++take[rem[r].second];
        ++total;
      }
    for (std::size_t k = 0; k < K; ++k) {
      shuffle(by_class[k], rng);
      for (std::size_t j = 0; j < take[k]; ++j) in_test[by_class[k][j]] = 1;
    }
  } else {
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    shuffle(all, rng);
    const auto k = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(n)));
    for (std::size_t j = 0; j < k; ++j) in_test[all[j]] = 1;
  }
  std::pair<std::vector<std::size_t>, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < n; ++i) (in_test[i] ? out.second : out.first).push_back(i);
  return out;
}

std::vector<std::size_t> per_class_indices(const Examples& ex, std::int64_t per_class, std::uint64_t seed) {
  const std::size_t n = ex.num_examples();
  std::vector<std::size_t> keep;
  if (per_class <= 0) {
    keep.resize(n);
    for (std::size_t i = 0; i < n; ++i) keep[i] = i;
    return keep;
  }
  SplitMix64 rng(seed);
  std::vector<std::vector<std::size_t>> by_class(static_cast<std::size_t>(std::max(ex.num_classes, 1)));
  for (std::size_t i = 0; i < n; ++i) by_class[static_cast<std::size_t>(example_class(ex, i))].push_back(i);
  for (auto& members : by_class) {
    shuffle(members, rng);
    const auto k = std::min<std::size_t>(members.size(), static_cast<std::size_t>(per_class));
    keep.insert(keep.end(), members.begin(), members.begin() + static_cast<std::ptrdiff_t>(k));
  }
  std::sort(keep.begin(), keep.end());
  return keep;
}

// ---------------------------------------------------------------------------------------------
// Scaling

Scaling parse_scaling(const std::string& s) {
  if (s == "none") return Scaling::none;
  if (s == "minmax01") return Scaling::minmax01;
  if (s == "minmax11") return Scaling::minmax11;
  if (s == "maxabs") return Scaling::maxabs;
  if (s == "standardize") return Scaling::standardize;
  throw DataError("unknown scaling '" + s + "' (none, minmax01, minmax11, maxabs, standardize)");
}

const char* to_string(Scaling s) {
  switch (s) {
    case Scaling::minmax01: return "minmax01";
    case Scaling::minmax11: return "minmax11";
    case Scaling::maxabs: return "maxabs";
    case Scaling::standardize: return "standardize";
    default: return "none";
  }
}

void apply_scaling(Examples& train, Examples& test, Scaling s) {
  if (s == Scaling::none) return;
  const Eigen::Index d = train.X.cols();
  const bool has_test = test.X.rows() > 0;
  if (has_test && test.X.cols() != d)
    throw DataError("scaling: train has " + std::to_string(d) + " features but test has " +
                    std::to_string(test.X.cols()));
  if (s == Scaling::maxabs) {
    std::vector<double> m(static_cast<std::size_t>(d), 0.0);
    auto scan = [&](const FeatureMatrix& X) {
      if (X.is_sparse()) {
        const auto& S = X.sparse();
        for (Eigen::Index k = 0; k < S.nonZeros(); ++k) {
          auto j = static_cast<std::size_t>(S.innerIndexPtr()[k]);
          m[j] = std::max(m[j], std::abs(S.valuePtr()[k]));
        }
      } else {
        const auto& D = X.dense();
        for (Eigen::Index r = 0; r < D.rows(); ++r)
          for (Eigen::Index j = 0; j < d; ++j) m[static_cast<std::size_t>(j)] = std::max(m[static_cast<std::size_t>(j)], std::abs(D(r, j)));
      }
    };
    scan(train.X);
    for (auto& v : m) v = v > 0 ? 1.0 / v : 0.0;
    auto apply = [&](FeatureMatrix& X) {
      if (X.rows() == 0) return;
      if (X.is_sparse()) {
        auto& S = X.sparse_mut();
        S.makeCompressed();
        for (Eigen::Index k = 0; k < S.nonZeros(); ++k) S.valuePtr()[k] *= m[static_cast<std::size_t>(S.innerIndexPtr()[k])];
      } else {
        auto& D = X.dense_mut();
        for (Eigen::Index r = 0; r < D.rows(); ++r)
          for (Eigen::Index j = 0; j < d; ++j) D(r, j) *= m[static_cast<std::size_t>(j)];
      }
    };
    apply(train.X);
    apply(test.X);
    return;
  }
  if (train.X.is_sparse() || (has_test && test.X.is_sparse()))
    throw DataError(std::string("scale '") + to_string(s) +
                    "' shifts feature values and would make sparse data dense; use scale: maxabs, "
                    "or load the data dense (dense: true)");
  const auto& D = train.X.dense();
  std::vector<double> a(static_cast<std::size_t>(d), 0.0), b(static_cast<std::size_t>(d), 0.0);
  for (Eigen::Index j = 0; j < d; ++j) {
    const auto col = D.col(j);
    const auto uj = static_cast<std::size_t>(j);
    if (D.rows() == 0) continue;
    if (s == Scaling::standardize) {
      const double mean = col.mean();
      const double var = (col.array() - mean).square().mean();
      const double sd = std::sqrt(var);
      a[uj] = sd > 0 ? 1.0 / sd : 0.0;
      b[uj] = -mean * a[uj];
    } else {
      const double lo = col.minCoeff(), hi = col.maxCoeff();
      const double width = s == Scaling::minmax01 ? 1.0 : 2.0;
      const double shift = s == Scaling::minmax01 ? 0.0 : -1.0;
      if (hi > lo) {
        a[uj] = width / (hi - lo);
        b[uj] = shift - lo * a[uj];
      }
    }
  }
  auto apply = [&](FeatureMatrix& X) {
    if (X.rows() == 0) return;
    auto& M = X.dense_mut();
    for (Eigen::Index r = 0; r < M.rows(); ++r)
      for (Eigen::Index j = 0; j < d; ++j) M(r, j) = a[static_cast<std::size_t>(j)] * M(r, j) + b[static_cast<std::size_t>(j)];
  };
  apply(train.X);
  apply(test.X);
}

// ---------------------------------------------------------------------------------------------
// Common options

std::vector<ParamSpec> common_dataset_params(bool with_test_file) {
  std::vector<ParamSpec> v;
  if (with_test_file) {
    ParamSpec t = path_param("test", nullptr, "test file (same format as train); absent: no test set, or a split of train (test_fraction)");
    t.optional = true;
    v.push_back(t);
  }
  v.push_back(real_param("test_fraction", 0.0, "without a test file: fraction of train held out as test by a seeded split (0 = no split)", 0.0, 1.0));
  v.push_back(bool_param("stratified", true, "split per class (each class contributes test_fraction of its examples)"));
  v.push_back(bool_param("split_by_group", false, "split whole groups (e.g. folds) instead of examples"));
  v.push_back(int_param("per_class", 0, "keep at most this many random training examples per class (0 = all)", 0.0));
  v.push_back(int_param("per_class_test", 0, "keep at most this many random test examples per class (0 = all)", 0.0));
  v.push_back(int_param("max_examples", 0, "keep only the first N training examples of the file, before any split (0 = all)", 0.0));
  v.push_back(int_param("max_test_examples", 0, "keep only the first N test examples of the file (0 = all)", 0.0));
  v.push_back(choice_param("scale", "none", {"none", "minmax01", "minmax11", "maxabs", "standardize"},
                           "per-feature scaling fitted on train, applied to test (maxabs keeps sparsity)"));
  v.push_back(int_param("seed_offset", 0, "added to the repeat's data seed for splits and subsampling", 0.0));
  v.push_back(bool_param("cache", true, "keep a binary cache of the parsed files in the run's cache folder"));
  return v;
}

DatasetOptions DatasetOptions::from(const Params& p) {
  DatasetOptions o;
  o.test = p.get_or<std::string>("test", "");
  o.test_fraction = p.get_or<double>("test_fraction", 0.0);
  o.stratified = p.get_or<bool>("stratified", true);
  o.split_by_group = p.get_or<bool>("split_by_group", false);
  o.per_class = p.get_or<std::int64_t>("per_class", 0);
  o.per_class_test = p.get_or<std::int64_t>("per_class_test", 0);
  o.max_examples = p.get_or<std::int64_t>("max_examples", 0);
  o.max_test_examples = p.get_or<std::int64_t>("max_test_examples", 0);
  o.scale = parse_scaling(p.get_or<std::string>("scale", "none"));
  o.seed_offset = p.get_or<std::int64_t>("seed_offset", 0);
  o.cache = p.get_or<bool>("cache", true);
  return o;
}

json DatasetOptions::to_json() const {
  return json{{"test_fraction", test_fraction}, {"stratified", stratified}, {"split_by_group", split_by_group},
              {"per_class", per_class}, {"per_class_test", per_class_test}, {"max_examples", max_examples},
              {"max_test_examples", max_test_examples}, {"scale", to_string(scale)}, {"seed_offset", seed_offset}};
}

namespace {
std::uint64_t derive_seed(std::uint64_t seed, std::int64_t offset, const char* tag) {
  return named_seed(tag, splitmix64(seed + static_cast<std::uint64_t>(offset) * SplitMix64::kGolden));
}
std::vector<std::size_t> first_n(std::size_t n, std::int64_t limit) {
  std::vector<std::size_t> v(std::min<std::size_t>(n, static_cast<std::size_t>(limit)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}
}  // namespace

Data finish_dataset(Data data, const DatasetOptions& opt, std::uint64_t seed) {
  json src = json::object();
  if (!data.source.empty()) {
    src = json::parse(data.source, nullptr, false);
    if (src.is_discarded() || !src.is_object()) src = json{{"description", data.source}};
  }
  json done = json::object();
  if (opt.max_examples > 0 && data.train.num_examples() > static_cast<std::size_t>(opt.max_examples)) {
    data.train = data.train.select(first_n(data.train.num_examples(), opt.max_examples));
    done["max_examples"] = opt.max_examples;
  }
  if (opt.max_test_examples > 0 && data.test.num_examples() > static_cast<std::size_t>(opt.max_test_examples)) {
    data.test = data.test.select(first_n(data.test.num_examples(), opt.max_test_examples));
    done["max_test_examples"] = opt.max_test_examples;
  }
  if (opt.test_fraction > 0) {
    if (data.test.num_examples() > 0)
      throw DataError(data.name + ": test_fraction = " + std::to_string(opt.test_fraction) +
                      " asks for a split of train, but the data set already has a test set; give one or the other");
    auto [tr, te] = split_indices(data.train, opt.test_fraction, derive_seed(seed, opt.seed_offset, "split"),
                                  opt.stratified, opt.split_by_group);
    data.test = data.train.select(te);
    data.train = data.train.select(tr);
    done["split"] = {{"test_fraction", opt.test_fraction}, {"stratified", opt.stratified},
                     {"by_group", opt.split_by_group}};
  }
  if (opt.per_class > 0) {
    data.train = data.train.select(per_class_indices(data.train, opt.per_class, derive_seed(seed, opt.seed_offset, "per_class")));
    done["per_class"] = opt.per_class;
  }
  if (opt.per_class_test > 0 && data.test.num_examples() > 0) {
    data.test = data.test.select(per_class_indices(data.test, opt.per_class_test, derive_seed(seed, opt.seed_offset, "per_class_test")));
    done["per_class_test"] = opt.per_class_test;
  }
  if (opt.scale != Scaling::none) {
    apply_scaling(data.train, data.test, opt.scale);
    done["scale"] = to_string(opt.scale);
  }
  if (data.test.num_examples() > 0 && data.test.num_features() != data.train.num_features())
    throw DataError(data.name + ": train has " + std::to_string(data.train.num_features()) +
                    " features but test has " + std::to_string(data.test.num_features()));
  data.train.check(data.name + " (train)");
  if (data.test.num_examples() > 0 || data.test.X.rows() > 0) data.test.check(data.name + " (test)");
  const auto train_counts = class_counts(data.train);
  const auto seen = std::count_if(train_counts.begin(), train_counts.end(), [](std::int64_t c) { return c > 0; });
  if (data.train.num_examples() > 0 && seen < 2)
    throw DataError(data.name + ": the training set has " + std::to_string(seen) +
                    " class: a classifier needs at least two (with one, w = 0 is optimal and every run ends at gap 0)");
  if (data.test.num_examples() > 0) {
    // Documented behaviour, not an error: such test examples are always misclassified.
    const auto test_counts = class_counts(data.test);
    std::vector<std::string> unseen;
    for (std::size_t k = 0; k < test_counts.size() && k < train_counts.size(); ++k)
      if (test_counts[k] > 0 && train_counts[k] == 0) unseen.push_back(std::to_string(k));
    if (!unseen.empty()) {
      std::string list;
      for (auto& u : unseen) list += (list.empty() ? "" : ", ") + u;
      std::fprintf(stderr, "warning: %s: test classes %s have no training example (they are always misclassified)\n",
                   printable(data.name).c_str(), list.c_str());
      src["unseen_test_classes"] = unseen;
    }
  }
  if (!done.empty()) {
    done["seed"] = seed;
    done["seed_offset"] = opt.seed_offset;
  }
  src["applied"] = done;
  src["train_examples"] = data.train.num_examples();
  src["test_examples"] = data.test.num_examples();
  src["num_features"] = data.train.num_features();
  src["num_classes"] = data.train.num_classes;
  src["train_class_counts"] = class_counts(data.train);
  if (data.test.num_examples() > 0) src["test_class_counts"] = class_counts(data.test);
  data.source = src.dump();
  return data;
}

// ---------------------------------------------------------------------------------------------
// Cache

CacheKey::CacheKey(std::string plugin_name, const std::string& plugin_version) : plugin(std::move(plugin_name)) {
  hash = checksum64(plugin + "\n" + plugin_version + "\n" + std::to_string(kDataCacheVersion));
}
void CacheKey::add_file(const std::string& path) { add_bytes(read_raw_file(path)); }
void CacheKey::add_bytes(std::string_view bytes) {
  const std::uint64_t c = checksum64(bytes);
  hash = checksum64(&c, sizeof c, hash);
}
void CacheKey::add(const json& options) { hash = checksum64(options.dump(), hash); }
std::string CacheKey::file_stem() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
  return plugin + "-" + buf;
}

std::string cache_path(const std::string& cache_dir, const CacheKey& key) {
  return (fs::path(cache_dir) / (key.file_stem() + ".dgcache")).string();
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

struct Reader {
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

void write_examples(Writer& w, const Examples& e) {
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

bool read_examples(Reader& r, Examples& e) {
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

std::string serialize_data(const Data& data, std::uint64_t key) {
  Writer p;
  p.str(data.name);
  p.str(data.source);
  write_examples(p, data.train);
  write_examples(p, data.test);
  Writer w;
  w.out.reserve(p.out.size() + 48);
  w.out.append(kMagic, sizeof kMagic);
  w.pod(kDataCacheVersion);
  w.pod(static_cast<std::uint32_t>(0));
  w.pod(key);
  w.pod(static_cast<std::uint64_t>(p.out.size()));
  w.pod(checksum64(p.out));
  w.out += p.out;
  return std::move(w.out);
}

bool deserialize_data(std::string_view bytes, std::uint64_t key, Data& out) {
  Reader h{bytes};
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
  if (checksum64(payload) != sum) return false;
  Reader r{payload};
  Data d;
  if (!r.str(d.name) || !r.str(d.source) || !read_examples(r, d.train) || !read_examples(r, d.test)) return false;
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

bool load_cache(const std::string& cache_dir, const CacheKey& key, Data& out) {
  if (cache_dir.empty()) return false;
  const std::string path = cache_path(cache_dir, key);
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  std::string bytes;
  try {
    bytes = read_raw_file(path);
  } catch (const std::exception&) {
    return false;
  }
  return deserialize_data(bytes, key.hash, out);
}

bool store_cache(const std::string& cache_dir, const CacheKey& key, const Data& data) {
  if (cache_dir.empty()) return false;
  try {
    fs::create_directories(cache_dir);
    const std::string path = cache_path(cache_dir, key);
    write_file_atomic(path, serialize_data(data, key.hash));  // temp file, fsync, rename
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

namespace {
void set_source_field(Data& d, const char* key, const std::string& value) {
  json src = d.source.empty() ? json::object() : json::parse(d.source, nullptr, false);
  if (src.is_discarded() || !src.is_object()) src = json{{"description", d.source}};
  src[key] = value;
  d.source = src.dump();
}
}  // namespace

Data load_with_cache(const std::string& cache_dir, const CacheKey& key, const std::function<Data()>& parse) {
  Data d;
  if (load_cache(cache_dir, key, d)) {
    set_source_field(d, "cache", "hit");
    return d;
  }
  d = parse();
  if (!cache_dir.empty()) {
    set_source_field(d, "cache", "off");  // stored copy says "off"; the hit path overwrites it
    const bool ok = store_cache(cache_dir, key, d);
    set_source_field(d, "cache", ok ? "stored" : "write failed");
  } else {
    set_source_field(d, "cache", "off");
  }
  return d;
}

Data load_files(const std::string& plugin, const std::string& version,
                const std::vector<std::pair<std::string, std::string>>& files, const json& parse_options,
                const DatasetOptions& opt, std::uint64_t seed, const std::string& cache_dir,
                const std::function<Data(const RawFiles&)>& parse) {
  RawFiles raw;
  for (const auto& [path, role] : files) {
    if (path.empty()) continue;
    raw.paths.push_back(resolve_data_path(path, role));
    raw.bytes.push_back(read_raw_file(raw.paths.back()));
  }
  const std::string dir = opt.cache ? cache_dir : "";
  CacheKey key(plugin, version);
  if (!dir.empty()) {
    for (const auto& b : raw.bytes) key.add_bytes(b);
    key.add(json{{"files", raw.paths.size()}, {"options", parse_options}});
  }
  Data data = load_with_cache(dir, key, [&] { return parse(raw); });
  return finish_dataset(std::move(data), opt, seed);
}

}  // namespace dualgap
