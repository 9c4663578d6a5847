#include "experiment/config_hash.hpp"
#include "base/json_text.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "base/hash.hpp"
#include "base/util.hpp"

namespace dualgap {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Every string of the data section that names an existing regular file: the files whose bytes
// decide the data, hashed beside the config.
void collect_files(const json& j, std::vector<std::string>& out) {
  if (j.is_string()) {
    std::error_code ec;
    const std::string s = j;
    if (!s.empty() && s.size() < 4096 && fs::is_regular_file(s, ec)) out.push_back(s);
  } else if (j.is_object() || j.is_array()) {
    for (auto& v : j) collect_files(v, out);
  }
}


// The data section with every string that names an existing file or folder replaced by its
// canonical path: `a.svm`, `./a.svm` and `/abs/a.svm` are one data set (its bytes are hashed
// beside, so an edited file still reruns).
json canonical_paths(json j) {
  if (j.is_string()) {
    const std::string s = j;
    std::error_code ec;
    if (!s.empty() && s.size() < 4096 && fs::exists(s, ec)) {
      const auto c = fs::weakly_canonical(s, ec);
      if (!ec) return c.string();
    }
  } else if (j.is_object() || j.is_array()) {
    for (auto& v : j) v = canonical_paths(v);
  }
  return j;
}

}  // namespace

std::string config_hash(const RunSpec& run, const PluginRegistry& reg) {
  Hash64 h;
  json cfg = run.config;
  // Neither how the experiment file was named on the command line (`exp.yaml`, `./exp.yaml`, an
  // absolute path) nor how a data path is spelled changes the runs: same hash, resumed.
  cfg.erase("sets");
  cfg.erase("file");
  cfg["data"] = canonical_paths(cfg["data"]);
  h.add(json_text(cfg));
  auto plugin_hash = [&](Kind k, const json& section) {
    if (section.is_null()) return;
    if (auto* p = reg.find(k, section["plugin"])) h.add(file_hash_hex(p->path));
  };
  plugin_hash(Kind::dataset, run.config["data"]);
  for (auto& f : run.config["features"]) plugin_hash(Kind::features, f);
  plugin_hash(Kind::oracle, run.config["oracle"]);
  plugin_hash(Kind::solver, run.config["solver"]);
  std::vector<std::string> files;
  collect_files(run.config["data"], files);
  for (auto& f : files) h.add(file_hash_hex(f));
  return h.hex();
}

}  // namespace dualgap
