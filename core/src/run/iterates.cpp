#include "run/iterates.hpp"

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

#include "base/util.hpp"

namespace fs = std::filesystem;

namespace dualgap {
namespace {

void dump(const fs::path& path, const double* data, std::vector<std::size_t> shape) {
  std::size_t size = 1;
  for (auto s : shape) size *= s;
  // .npy through xtensor's writer (C order, '<f8'); written whole, then renamed into place.
  const std::string bytes = xt::dump_npy(xt::adapt(data, size, xt::no_ownership(), shape));
  write_file_atomic(path.string(), bytes);
}

xt::xarray<double> load(const fs::path& path) {
  try {
    return xt::load_npy<double>(path.string());
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a readable float64 .npy file ({})", path.string(), e.what()));
  }
}

std::vector<std::size_t> shape_of(const xt::xarray<double>& a) { return {a.shape().begin(), a.shape().end()}; }

DenseMatrix matrix(const fs::path& path) {
  auto a = load(path);
  const auto s = shape_of(a);
  if (s.size() != 2) throw std::runtime_error(fmt::format("{}: expected a 2-d array, got {} dimensions", path.string(), s.size()));
  DenseMatrix M(static_cast<Eigen::Index>(s[0]), static_cast<Eigen::Index>(s[1]));
  std::copy(a.data(), a.data() + a.size(), M.data());
  return M;
}

Vector vector(const fs::path& path) {
  auto a = load(path);
  if (a.dimension() != 1) throw std::runtime_error(fmt::format("{}: expected a 1-d array", path.string()));
  Vector v(static_cast<Eigen::Index>(a.size()));
  std::copy(a.data(), a.data() + a.size(), v.data());
  return v;
}

std::string row_name(const char* stem, std::size_t row, const char* ext) { return fmt::format("{}_{:06d}.{}", stem, row, ext); }

}  // namespace

void OwnedIterate::assign(const Iterate& it) {
  if (it.w) model = "w", w = *it.w;
  else if (it.W) model = "W", W = *it.W;
  else if (it.ensemble) model = "ensemble", ensemble = *it.ensemble;
  else if (it.train_scores) {
    model = "scores";
    train_scores = *it.train_scores;
    has_test_scores = it.test_scores != nullptr;
    if (has_test_scores) test_scores = *it.test_scores;
  }
  has_intercept = it.intercept != nullptr;
  if (has_intercept) intercept = *it.intercept;
  has_dual = it.ssvm_dual.has_value();
  separate_w_alpha = has_dual && it.ssvm_dual->w_alpha != nullptr;
  if (separate_w_alpha) w_alpha = *it.ssvm_dual->w_alpha;
  l_alpha = has_dual ? it.ssvm_dual->l_alpha : 0.0;
}

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
}

void IterateStore::keep(const Iterate& it, std::size_t row, double passes) {
  if (mode_ == "none") return;
  last_.assign(it);
  model_ = last_.model;
  last_row_ = row;
  last_passes_ = passes;
  have_last_ = true;
  if (mode_ == "all") {
    saved_.push_back(write(last_, row, passes));
    have_last_ = false;
  }
}

json IterateStore::finish() {
  if (mode_ == "none") return nullptr;
  if (have_last_) saved_.push_back(write(last_, last_row_, last_passes_));
  have_last_ = false;
  if (saved_.empty()) return nullptr;
  return {{"mode", mode_}, {"model", model_}, {"saved", saved_}};
}

json IterateStore::write(const OwnedIterate& it, std::size_t row, double passes) {
  const fs::path dir = fs::path(dir_) / "iterates";
  fs::create_directories(dir);
  json files = json::object();
  auto put = [&](const char* key, const double* data, std::vector<std::size_t> shape) {
    const std::string name = row_name(key, row, "npy");
    dump(dir / name, data, std::move(shape));
    files[key] = "iterates/" + name;
  };
  auto rows = [](const DenseMatrix& M) { return std::vector<std::size_t>{std::size_t(M.rows()), std::size_t(M.cols())}; };
  if (it.model == "w") put("w", it.w.data(), {std::size_t(it.w.size())});
  else if (it.model == "W") {
    put("W", it.W.data(), rows(it.W));
    if (it.has_intercept) put("intercept", it.intercept.data(), {std::size_t(it.intercept.size())});
  }
  else if (it.model == "ensemble") {
    put("alpha", it.ensemble.alpha.data(), rows(it.ensemble.alpha));
    json stumps = json::array();
    for (auto& s : it.ensemble.stumps)
      stumps.push_back({{"feature", s.feature}, {"threshold", s.threshold}, {"sign", s.sign}, {"cls", s.cls}});
    const std::string name = row_name("stumps", row, "json");
    write_file_atomic((dir / name).string(), stumps.dump());
    files["stumps"] = "iterates/" + name;
  } else if (it.model == "scores") {
    put("train_scores", it.train_scores.data(), rows(it.train_scores));
    if (it.has_test_scores) put("test_scores", it.test_scores.data(), rows(it.test_scores));
  }
  if (it.separate_w_alpha) put("w_alpha", it.w_alpha.data(), {std::size_t(it.w_alpha.size())});
  json entry = {{"row", row}, {"passes", passes}, {"files", files}};
  if (it.has_dual) entry["l_alpha"] = it.l_alpha;
  return entry;
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
