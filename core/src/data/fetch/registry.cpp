// Reading data/registry.yaml, locating it, and the hint a missing data file's error names.
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "data/fetch/registry.hpp"
#include "base/util.hpp"
#include "base/yaml.hpp"
#include "dualgap/parse.hpp"  // valid_utf8

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

/// Reads registry.yaml into typed values: every key known, every value of its type, every name
/// that becomes part of a path one safe component, each error at its file:line:column.
struct Reader {
  std::string path;

  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    const YAML::Mark m = node.Mark();
    if (m.line < 0) throw std::runtime_error(fmt::format("{}: {}", path, what));
    throw std::runtime_error(fmt::format("{}:{}:{}: {}", path, m.line + 1, m.column + 1, what));
  }

  static std::string shown(const YAML::Node& n) {
    if (n.IsScalar()) return "'" + printable(n.Scalar()) + "'";
    if (n.IsSequence()) return "a list";
    if (n.IsMap()) return "a mapping";
    return "nothing";
  }

  /// Refuses keys the registry does not define (a typo would silently drop a checksum or URL).
  void only_keys(const YAML::Node& map, std::initializer_list<const char*> keys, const std::string& who) const {
    if (!map.IsMap()) fail(map, fmt::format("{}: expected a mapping of key: value, got {}", who, shown(map)));
    for (const auto& kv : map) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
      bool known = false;
      for (const char* k : keys) known = known || key == k;
      if (!known)
        fail(kv.first, fmt::format("{}: unknown key {} (valid keys: {})", who, shown(kv.first), fmt::join(keys, ", ")));
    }
  }

  std::string text(const YAML::Node& map, const char* key, bool required, const std::string& who) const {
    const YAML::Node n = map[key];
    if (!n) {
      if (required) fail(map, fmt::format("{}: '{}' is required", who, key));
      return "";
    }
    if (!n.IsScalar()) fail(n, fmt::format("{}: expected a string, got {} ({})", key, shown(n), who));
    return n.Scalar();
  }

  std::vector<std::string> strings(const YAML::Node& n, const char* key, const std::string& expected,
                                   const std::string& who) const {
    if (!n.IsSequence()) fail(n, fmt::format("{}: expected {}, got {} ({})", key, expected, shown(n), who));
    std::vector<std::string> out;
    for (const auto& item : n) {
      if (!item.IsScalar()) fail(item, fmt::format("{}: expected {}, got {} in the list ({})", key, expected, shown(item), who));
      out.push_back(item.Scalar());
    }
    return out;
  }

  long long bytes(const YAML::Node& n, const std::string& who) const {
    long long v = -1;
    const std::string s = n.IsScalar() ? n.Scalar() : std::string();
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (!n.IsScalar() || s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 0)
      fail(n, fmt::format("bytes: expected a non-negative integer (the file's size), got {} ({})", shown(n), who));
    return v;
  }

  /// A URL libcurl is allowed to fetch: http or https, no control characters or spaces.
  void check_url(const YAML::Node& n, const std::string& url, const std::string& who) const {
    const bool scheme = url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0;
    bool clean = true;
    for (unsigned char c : url) clean = clean && c > 0x20 && c != 0x7f;
    if (!scheme || !clean)
      fail(n, fmt::format("urls: expected a list of http:// or https:// URLs without spaces or control characters, "
                          "got '{}' ({})",
                          printable(url), who));
  }
};

bool is_sha256(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

std::string unsafe_component(const std::string& s) {
  if (s.empty()) return "is empty";
  if (s == "." || s == "..") return "is '" + s + "'";
  if (s.find('/') != std::string::npos) return "contains '/'";
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return "contains a control character";
  if (!valid_utf8(s)) return "is not valid UTF-8";
  return "";
}

std::string unsafe_relative_path(const std::string& p) {
  if (p.empty()) return "is empty";
  if (p.front() == '/') return "is absolute";
  std::size_t b = 0;
  for (;;) {
    const auto e = p.find('/', b);
    const std::string part = p.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (const std::string why = unsafe_component(part); !why.empty())
      return fmt::format("has a component that {}", why == "is empty" ? "is empty ('//' or a trailing '/')" : why);
    if (e == std::string::npos) return "";
    b = e + 1;
  }
}

Registry read_registry(const std::string& path) {
  Reader r{path};
  YAML::Node root;
  try {
    root = yaml::load_file(path);
  } catch (const yaml::Error& e) {
    throw std::runtime_error(std::string(e.what()) + " (the data registry)");
  }
  Registry reg;
  reg.path = path;
  if (!root.IsMap()) r.fail(root, "the data registry must be a mapping with 'datasets' (a list)");
  r.only_keys(root, {"datasets"}, "registry");
  if (!root["datasets"] || !root["datasets"].IsSequence()) r.fail(root, "'datasets' (a list) is required");
  std::set<std::string> names;
  for (const auto& node : root["datasets"]) {
    r.only_keys(node, {"name", "title", "format", "licence", "paper", "ours", "source", "used_by", "files", "manifest",
                       "url_base"},
                "data set");
    Dataset d;
    d.name = r.text(node, "name", true, "data set");
    // The name is the folder under --to and part of the mirror's URL: one safe path component.
    if (const std::string why = unsafe_component(d.name); !why.empty())
      r.fail(node["name"], fmt::format("name: '{}' {}: a data set's name is one folder name (it becomes <to>/<name>/)",
                                       printable(d.name), why));
    const std::string who = "data set '" + d.name + "'";
    if (!names.insert(d.name).second) r.fail(node, who + ": listed twice");
    d.title = r.text(node, "title", true, who);
    d.format = r.text(node, "format", true, who);
    d.licence = r.text(node, "licence", true, who);
    d.paper = r.text(node, "paper", true, who);
    d.ours = r.text(node, "ours", true, who);
    d.source = r.text(node, "source", true, who);
    if (node["used_by"]) d.used_by = r.strings(node["used_by"], "used_by", "a list of experiment names", who);
    std::set<std::string> paths;
    auto check_path = [&](const YAML::Node& at, const std::string& p, const std::string& where) {
      if (const std::string why = unsafe_relative_path(p); !why.empty())
        r.fail(at, fmt::format("{}file path '{}' {}: it must be relative and stay inside the data set's folder ({})",
                               where, printable(p), why, who));
      if (!paths.insert(p).second) r.fail(at, fmt::format("{}file path '{}' is listed twice ({})", where, printable(p), who));
    };
    if (node["files"]) {
      if (!node["files"].IsSequence()) r.fail(node["files"], fmt::format("files: expected a list, got {} ({})", Reader::shown(node["files"]), who));
      for (const auto& f : node["files"]) {
        r.only_keys(f, {"path", "bytes", "sha256", "sha256_uncompressed", "urls"}, who + " file");
        DataFile df;
        df.path = r.text(f, "path", true, who + " file");
        check_path(f["path"], df.path, "");
        const std::string wf = who + ", file " + printable(df.path);
        df.sha256 = r.text(f, "sha256", true, wf);
        if (!is_sha256(df.sha256)) r.fail(f["sha256"], "sha256: expected 64 lower-case hex digits (" + wf + ")");
        df.sha256_uncompressed = r.text(f, "sha256_uncompressed", false, wf);
        if (!df.sha256_uncompressed.empty() && !is_sha256(df.sha256_uncompressed))
          r.fail(f["sha256_uncompressed"], "sha256_uncompressed: expected 64 lower-case hex digits (" + wf + ")");
        if (f["bytes"]) df.bytes = r.bytes(f["bytes"], wf);
        if (f["urls"]) {
          df.urls = r.strings(f["urls"], "urls", "a list of URLs", wf);
          std::size_t i = 0;
          for (const auto& u : f["urls"]) r.check_url(u, df.urls[i++], wf);
        }
        d.files.push_back(std::move(df));
      }
    }
    if (node["manifest"]) {
      const YAML::Node m = node["manifest"];
      r.only_keys(m, {"path", "file", "sha256"}, who + " manifest");
      d.manifest_path = r.text(m, "path", true, who + " manifest");
      check_path(m["path"], d.manifest_path, "manifest: ");
      d.manifest_file = r.text(m, "file", true, who + " manifest");
      // Read from beside the registry: a file name there, not a path to anywhere.
      if (const std::string why = unsafe_component(d.manifest_file); !why.empty())
        r.fail(m["file"], fmt::format("manifest: file '{}' {}: the name of a file beside the registry ({})",
                                      printable(d.manifest_file), why, who));
      d.manifest_sha256 = r.text(m, "sha256", true, who + " manifest");
      if (!is_sha256(d.manifest_sha256)) r.fail(m["sha256"], "sha256: expected 64 lower-case hex digits (" + who + " manifest)");
      d.url_base = r.text(node, "url_base", true, who);
      r.check_url(node["url_base"], d.url_base, who + " url_base");
      // The manifest is itself a file of the data set (kept beside the registry, so no URL).
      const fs::path manifest = fs::path(path).parent_path() / d.manifest_file;
      std::ifstream in(manifest);
      if (!in) r.fail(m, who + ": cannot read the manifest " + manifest.string());
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
        if (const std::string why = unsafe_relative_path(df.path); !why.empty())
          throw std::runtime_error(fmt::format("{}:{}: file path '{}' {}: it must be relative and stay inside the data "
                                               "set's folder",
                                               manifest.string(), lineno, printable(df.path), why));
        if (!paths.insert(df.path).second)
          throw std::runtime_error(fmt::format("{}:{}: file path '{}' is listed twice", manifest.string(), lineno, printable(df.path)));
        df.urls.push_back(d.url_base + df.path);
        d.files.push_back(std::move(df));
      }
    } else if (node["url_base"]) {
      r.fail(node["url_base"], who + ": url_base is only used with 'manifest'");
    }
    if (d.files.empty()) r.fail(node, who + ": no files (give 'files' or 'manifest')");
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
