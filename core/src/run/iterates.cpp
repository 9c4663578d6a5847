#include "run/iterates.hpp"
#include "base/json_text.hpp"

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

#include "base/files.hpp"
#include "base/util.hpp"

namespace fs = std::filesystem;

namespace dualgap {
namespace {

/// An .npy file (C order, '<f8') written through xtensor's writer straight into `file`, which
/// the caller commits: no copy of the array in memory (sector's w is 46 MB).
void dump(AtomicFile& file, const double* data, std::vector<std::size_t> shape) {
  std::size_t size = 1;
  for (auto s : shape) size *= s;
  xt::detail::dump_npy_stream(file.stream(), xt::adapt(data, size, xt::no_ownership(), shape));
}

// A float64 array read back from a .npy file. The reader is strict because the file comes from
// a results folder, which may have been cut short (a full disk, a partial copy) or edited: the
// byte count must be exactly what the header declares, so that a truncated file is an error
// naming it instead of a model with missing or garbage coefficients.
struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<double> values;  // C order (row-major)
};

[[noreturn]] void npy_error(const fs::path& path, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: not a readable float64 .npy file ({})", path.string(), what));
}

// The value of one key of the header's Python dict literal, e.g. 'descr': '<f8'.
std::string npy_field(const fs::path& path, const std::string& header, const char* key) {
  const std::string quoted = fmt::format("'{}'", key);
  auto at = header.find(quoted);
  if (at == std::string::npos) npy_error(path, fmt::format("the header has no {}", quoted));
  at = header.find(':', at + quoted.size());
  if (at == std::string::npos) npy_error(path, fmt::format("the header's {} has no value", quoted));
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  std::size_t end = at;
  if (at < header.size() && header[at] == '(') end = header.find(')', at);
  else end = header.find_first_of(",}", at);
  if (end == std::string::npos) npy_error(path, fmt::format("the header's {} is not closed", quoted));
  if (header[at] == '(') ++end;
  std::string v = header.substr(at, end - at);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

NpyArray load(const fs::path& path) {
  const std::string bytes = read_file(path.string());  // a FIFO or device is refused, never waited on
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) npy_error(path, "no .npy magic string");
  const auto major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0, offset = 0;
  auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i])); };
  if (major == 1) {
    header_len = byte(8) | byte(9) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) npy_error(path, "the header is cut");
    header_len = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    offset = 12;
  } else {
    npy_error(path, fmt::format("format version {} unknown", major));
  }
  if (header_len > bytes.size() - offset) npy_error(path, "the header is cut");
  const std::string header = bytes.substr(offset, header_len);
  offset += header_len;
  const std::string descr = npy_field(path, header, "descr");
  if (descr != "'<f8'" && descr != "'=f8'")
    npy_error(path, fmt::format("element type {}; expected float64, little-endian ('<f8')", descr));
  const std::string order = npy_field(path, header, "fortran_order");
  if (order != "False" && order != "True") npy_error(path, fmt::format("fortran_order {}", order));
  const std::string shape_s = npy_field(path, header, "shape");
  if (shape_s.size() < 2 || shape_s.front() != '(' || shape_s.back() != ')') npy_error(path, "shape " + shape_s);
  NpyArray a;
  std::size_t count = 1;
  bool overflow = false;
  for (std::size_t i = 1; i + 1 < shape_s.size();) {
    while (i + 1 < shape_s.size() && (shape_s[i] == ' ' || shape_s[i] == ',')) ++i;
    if (i + 1 >= shape_s.size()) break;
    std::size_t v = 0, digits = 0;
    while (i + 1 < shape_s.size() && shape_s[i] >= '0' && shape_s[i] <= '9') {
      overflow = overflow || v > (SIZE_MAX - 9) / 10;
      v = v * 10 + static_cast<std::size_t>(shape_s[i++] - '0');
      ++digits;
    }
    if (digits == 0) npy_error(path, "shape " + shape_s);
    overflow = overflow || (v != 0 && count > SIZE_MAX / 8 / v);
    count *= v;
    a.shape.push_back(v);
  }
  if (a.shape.size() > 2) npy_error(path, fmt::format("shape {}: more than 2 dimensions", shape_s));
  const std::size_t actual = bytes.size() - offset;
  if (overflow || count * 8 != actual)
    throw std::runtime_error(fmt::format("{}: the .npy header declares shape {} of float64, {} bytes of data, but "
                                         "the file holds {} bytes after the header (cut short or padded): refused",
                                         path.string(), shape_s, overflow ? std::string("too many") : std::to_string(count * 8),
                                         actual));
  a.values.resize(count);
  if (count) std::memcpy(a.values.data(), bytes.data() + offset, count * 8);
  if (order == "True" && a.shape.size() == 2) {  // column-major on disk: reorder to row-major
    std::vector<double> c(count);
    const std::size_t r = a.shape[0], k = a.shape[1];
    for (std::size_t i = 0; i < r; ++i)
      for (std::size_t j = 0; j < k; ++j) c[i * k + j] = a.values[j * r + i];
    a.values = std::move(c);
  }
  return a;
}

DenseMatrix matrix(const fs::path& path) {
  auto a = load(path);
  if (a.shape.size() != 2)
    throw std::runtime_error(fmt::format("{}: expected a 2-d array, got {} dimensions", path.string(), a.shape.size()));
  DenseMatrix M(static_cast<Eigen::Index>(a.shape[0]), static_cast<Eigen::Index>(a.shape[1]));
  std::copy(a.values.begin(), a.values.end(), M.data());
  return M;
}

Vector vector(const fs::path& path) {
  auto a = load(path);
  if (a.shape.size() != 1) throw std::runtime_error(fmt::format("{}: expected a 1-d array", path.string()));
  Vector v(static_cast<Eigen::Index>(a.values.size()));
  std::copy(a.values.begin(), a.values.end(), v.data());
  return v;
}

std::string row_name(const char* stem, std::size_t row, const char* ext) { return fmt::format("{}_{:06d}.{}", stem, row, ext); }

}  // namespace

Iterate OwnedIterate::view() const {
  Iterate it;
  if (model == "w") it.w = &w;
  else if (model == "W") it.W = &W, it.intercept = has_intercept ? &intercept : nullptr;
  else if (model == "ensemble") it.ensemble = &ensemble;
  else if (model == "scores") {
    it.train_scores = &train_scores;
    if (has_test_scores) it.test_scores = &test_scores;
  }
  if (has_dual) it.ssvm_dual = SsvmDualPoint{separate_w_alpha ? &w_alpha : nullptr, l_alpha};
  return it;
}

IterateStore::IterateStore(std::string run_dir, std::string mode) : dir_(std::move(run_dir)), mode_(std::move(mode)) {
  if (mode_ != "none" && mode_ != "final" && mode_ != "all")
    throw std::invalid_argument("record.iterates must be none, final or all, got '" + mode_ + "'");
  // The temporaries of an earlier attempt of this run that was killed while its last iterate
  // was pending (".w_000012.npy.tmp-<16 hex>"): only this run writes this folder.
  std::error_code ec;
  for (auto it = fs::directory_iterator(fs::path(dir_) / "iterates", ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    if (is_temporary_name(it->path().filename().string()) && it->is_regular_file(ec)) fs::remove(it->path(), ec);
  }
}

IterateStore::~IterateStore() = default;

void IterateStore::keep(const Iterate& it, std::size_t row, double passes) {
  if (mode_ == "none") return;
  if (mode_ == "all") {
    Written w = write(it, row, passes);
    for (auto& f : w.files) f->commit();
    model_ = w.model;
    saved_.push_back(std::move(w.entry));
    return;
  }
  // final: the checkpoint's files are written now but committed by finish(), each replacing the
  // last one's (whose temporaries are removed): nothing of the model is copied in memory. A
  // failure is reported by finish(), as when the copy was written there.
  pending_ = Written{};
  error_.clear();
  try {
    pending_ = write(it, row, passes);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

json IterateStore::finish() {
  if (mode_ == "none") return nullptr;
  if (!error_.empty()) throw std::runtime_error(error_);
  if (!pending_.files.empty()) {
    for (auto& f : pending_.files) f->commit();
    model_ = pending_.model;
    saved_.push_back(std::move(pending_.entry));
    pending_ = Written{};
  }
  if (saved_.empty()) return nullptr;
  return {{"mode", mode_}, {"model", model_}, {"saved", saved_}};
}

IterateStore::Written IterateStore::write(const Iterate& it, std::size_t row, double passes) {
  const fs::path dir = fs::path(dir_) / "iterates";
  fs::create_directories(dir);
  Written out;
  json files = json::object();
  auto open = [&](const char* key, const char* ext) -> AtomicFile& {
    const std::string name = row_name(key, row, ext);
    out.files.push_back(std::make_unique<AtomicFile>((dir / name).string()));
    files[key] = "iterates/" + name;
    return *out.files.back();
  };
  auto put = [&](const char* key, const double* data, std::vector<std::size_t> shape) {
    dump(open(key, "npy"), data, std::move(shape));
  };
  auto rows = [](const DenseMatrix& M) { return std::vector<std::size_t>{std::size_t(M.rows()), std::size_t(M.cols())}; };
  if (it.w) {
    out.model = "w";
    put("w", it.w->data(), {std::size_t(it.w->size())});
  } else if (it.W) {
    out.model = "W";
    put("W", it.W->data(), rows(*it.W));
    if (it.intercept) put("intercept", it.intercept->data(), {std::size_t(it.intercept->size())});
  } else if (it.ensemble) {
    out.model = "ensemble";
    put("alpha", it.ensemble->alpha.data(), rows(it.ensemble->alpha));
    json stumps = json::array();
    for (auto& s : it.ensemble->stumps)
      stumps.push_back({{"feature", s.feature}, {"threshold", s.threshold}, {"sign", s.sign}, {"cls", s.cls}});
    open("stumps", "json").write(json_text(stumps));
  } else if (it.train_scores) {
    out.model = "scores";
    put("train_scores", it.train_scores->data(), rows(*it.train_scores));
    if (it.test_scores) put("test_scores", it.test_scores->data(), rows(*it.test_scores));
  }
  if (it.ssvm_dual && it.ssvm_dual->w_alpha)
    put("w_alpha", it.ssvm_dual->w_alpha->data(), {std::size_t(it.ssvm_dual->w_alpha->size())});
  out.entry = {{"row", row}, {"passes", passes}, {"files", files}};
  if (it.ssvm_dual) out.entry["l_alpha"] = it.ssvm_dual->l_alpha;
  return out;
}

OwnedIterate load_iterate(const std::string& run_dir, const json& e, const std::string& model) {
  const fs::path dir(run_dir);
  const json& files = e.at("files");
  auto path = [&](const char* key) {
    if (!files.contains(key)) throw std::runtime_error(fmt::format("{}/run.json: saved iterate of row {} has no '{}' file", run_dir, e.value("row", -1), key));
    return dir / files[key].get<std::string>();
  };
  OwnedIterate it;
  it.model = model;
  if (model == "w") it.w = vector(path("w"));
  else if (model == "W") {
    it.W = matrix(path("W"));
    it.has_intercept = files.contains("intercept");
    if (it.has_intercept) it.intercept = vector(path("intercept"));
  }
  else if (model == "ensemble") {
    it.ensemble.alpha = matrix(path("alpha"));
    const json stumps = json::parse(read_file(path("stumps").string()));
    for (auto& s : stumps) {
      Stump h;
      h.feature = s.at("feature");
      h.threshold = s.at("threshold");
      h.sign = s.at("sign");
      h.cls = s.at("cls");
      it.ensemble.stumps.push_back(h);
    }
    if (static_cast<Eigen::Index>(it.ensemble.stumps.size()) != it.ensemble.alpha.rows())
      throw std::runtime_error(fmt::format("{}: {} stumps but alpha has {} rows", path("stumps").string(),
                                           it.ensemble.stumps.size(), it.ensemble.alpha.rows()));
  } else if (model == "scores") {
    it.train_scores = matrix(path("train_scores"));
    it.has_test_scores = files.contains("test_scores");
    if (it.has_test_scores) it.test_scores = matrix(path("test_scores"));
  } else {
    throw std::runtime_error(fmt::format("{}/run.json: unknown iterate model '{}'", run_dir, model));
  }
  it.has_dual = e.contains("l_alpha");
  if (it.has_dual) it.l_alpha = e["l_alpha"].get<double>();
  it.separate_w_alpha = files.contains("w_alpha");
  if (it.separate_w_alpha) it.w_alpha = vector(path("w_alpha"));
  return it;
}

}  // namespace dualgap
