// Reading data/registry.yaml, locating it, and the hint a missing data file's error names.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "data/fetch/registry.hpp"

namespace fs = std::filesystem;

namespace dualgap::datafetch {

const Dataset* Registry::find(const std::string& name) const {
  for (const auto& d : datasets)
    if (d.name == name) return &d;
  return nullptr;
}

std::string find_registry() {
  if (const char* env = std::getenv("DUALGAP_DATA_REGISTRY"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path() / ".." / "share" / "dualgap" / "registry.yaml";
    if (fs::exists(installed, ec)) return installed.lexically_normal().string();
  }
#ifdef DUALGAP_SOURCE_DIR
  fs::path source = fs::path(DUALGAP_SOURCE_DIR) / "data" / "registry.yaml";
  if (fs::exists(source, ec)) return source.string();
#endif
  throw std::runtime_error("data/registry.yaml not found (looked next to the executable in ../share/dualgap/ and in "
                           "the source tree; set DUALGAP_DATA_REGISTRY)");
}

namespace {

[[noreturn]] void fail(const std::string& path, const YAML::Node& node, const std::string& what) {
  throw std::runtime_error(fmt::format("{}:{}: {}", path, node.Mark().line + 1, what));
}

std::string text(const std::string& path, const YAML::Node& map, const char* key, bool required,
                 const std::string& who) {
  const YAML::Node n = map[key];
  if (!n) {
    if (required) fail(path, map, fmt::format("{}: '{}' is required", who, key));
    return "";
  }
  if (!n.IsScalar()) fail(path, n, fmt::format("{}: '{}' must be a string", who, key));
  return n.as<std::string>();
}

bool is_sha256(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

/// Paths stay inside the data set's folder: no absolute paths, no "..".
void check_relative(const std::string& path, const YAML::Node& node, const std::string& p) {
  fs::path rel(p);
  bool bad = p.empty() || rel.is_absolute();
  for (const auto& part : rel)
    if (part == "..") bad = true;
  if (bad) fail(path, node, "file path '" + p + "' must be relative and stay inside the data set's folder");
}

}  // namespace

Registry read_registry(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw std::runtime_error(path + ": cannot read the data registry");
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(fmt::format("{}:{}: invalid YAML: {}", path, e.mark.line + 1, e.msg));
  }
  Registry reg;
  reg.path = path;
  if (!root["datasets"] || !root["datasets"].IsSequence()) fail(path, root, "'datasets' (a list) is required");
  std::set<std::string> names;
  for (const auto& node : root["datasets"]) {
    Dataset d;
    d.name = text(path, node, "name", true, "data set");
    const std::string who = "data set '" + d.name + "'";
    if (!names.insert(d.name).second) fail(path, node, who + ": listed twice");
    d.title = text(path, node, "title", true, who);
    d.format = text(path, node, "format", true, who);
    d.licence = text(path, node, "licence", true, who);
    d.paper = text(path, node, "paper", true, who);
    d.ours = text(path, node, "ours", true, who);
    d.source = text(path, node, "source", true, who);
    if (node["used_by"])
      for (const auto& u : node["used_by"]) d.used_by.push_back(u.as<std::string>());
    if (node["files"]) {
      for (const auto& f : node["files"]) {
        DataFile df;
        df.path = text(path, f, "path", true, who + " file");
        check_relative(path, f, df.path);
        df.sha256 = text(path, f, "sha256", true, who + " file " + df.path);
        if (!is_sha256(df.sha256)) fail(path, f, who + " file " + df.path + ": sha256 must be 64 lower-case hex digits");
        df.sha256_uncompressed = text(path, f, "sha256_uncompressed", false, who);
        if (!df.sha256_uncompressed.empty() && !is_sha256(df.sha256_uncompressed))
          fail(path, f, who + " file " + df.path + ": sha256_uncompressed must be 64 lower-case hex digits");
        if (f["bytes"]) df.bytes = f["bytes"].as<long long>();
        if (f["urls"])
          for (const auto& u : f["urls"]) df.urls.push_back(u.as<std::string>());
        d.files.push_back(std::move(df));
      }
    }
    if (node["manifest"]) {
      const YAML::Node m = node["manifest"];
      d.manifest_path = text(path, m, "path", true, who + " manifest");
      d.manifest_file = text(path, m, "file", true, who + " manifest");
      d.manifest_sha256 = text(path, m, "sha256", true, who + " manifest");
      d.url_base = text(path, node, "url_base", true, who);
      // The manifest is itself a file of the data set (kept beside the registry, so no URL).
      const fs::path manifest = fs::path(path).parent_path() / d.manifest_file;
      std::ifstream in(manifest);
      if (!in) fail(path, m, who + ": cannot read the manifest " + manifest.string());
      DataFile self;
      self.path = d.manifest_path;
      self.sha256 = d.manifest_sha256;
      d.files.push_back(self);
      std::string line;
      int lineno = 0;
      while (std::getline(in, line)) {
        ++lineno;
        if (line.empty()) continue;
        const auto space = line.find("  ");
        if (space != 64 || !is_sha256(line.substr(0, 64)))
          throw std::runtime_error(fmt::format("{}:{}: expected '<sha256>  <path>' (sha256sum format)", manifest.string(), lineno));
        DataFile df;
        df.sha256 = line.substr(0, 64);
        df.path = line.substr(66);
        check_relative(manifest.string(), m, df.path);
        df.urls.push_back(d.url_base + df.path);
        d.files.push_back(std::move(df));
      }
    }
    if (d.files.empty()) fail(path, node, who + ": no files (give 'files' or 'manifest')");
    reg.datasets.push_back(std::move(d));
  }
  return reg;
}

std::string fetch_hint(const std::string& missing_path) {
  std::string name;
  const std::string marker = "${DUALGAP_DATA}/";
  if (missing_path.rfind(marker, 0) == 0) {
    name = missing_path.substr(marker.size());
  } else if (const char* root_env = std::getenv("DUALGAP_DATA"); root_env && *root_env) {
    std::string root = root_env;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (missing_path.size() > root.size() + 1 && missing_path.compare(0, root.size(), root) == 0 &&
        missing_path[root.size()] == '/')
      name = missing_path.substr(root.size() + 1);
  }
  const auto slash = name.find('/');
  if (name.empty() || slash == std::string::npos) return "";
  name = name.substr(0, slash);
  try {
    const Registry reg = read_registry(find_registry());
    if (!reg.find(name)) return "";
  } catch (const std::exception&) {
    return "";  // no registry at hand: the message without the hint is still right
  }
  const char* root = std::getenv("DUALGAP_DATA");
  return root && *root ? fmt::format("; fetch it with: dualgap data fetch {}", name)
                       : fmt::format("; fetch it with: dualgap data fetch {} --to DIR, then export DUALGAP_DATA=DIR", name);
}

}  // namespace dualgap::datafetch
