#include "scaffold/new_plugin.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "base/files.hpp"
#include "base/util.hpp"  // printable
#include "dualgap/plugin.hpp"

namespace dualgap::scaffold {
namespace fs = std::filesystem;

namespace {

const char* const kKinds[] = {"dataset", "features", "oracle", "solver"};

bool known_kind(const std::string& k) {
  for (const char* s : kKinds)
    if (k == s) return true;
  return false;
}

std::string read_template(const fs::path& p) {
  try {
    return read_file(p.string());
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("cannot read a template: ") + e.what());
  }
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

/// The first folder of the search path holding templates for `kind`.
fs::path find_templates(const std::string& kind) {
  for (const auto& d : template_search_path()) {
    std::error_code ec;
    if (fs::is_directory(fs::path(d) / kind, ec)) return d;
  }
  std::string where;
  for (const auto& d : template_search_path()) where += "\n  " + d;
  throw std::runtime_error("no templates for kind '" + kind + "' found; looked in:" + where +
                           "\n(set DUALGAP_TEMPLATE_DIR to a copy of core/share/templates)");
}

}  // namespace

bool valid_plugin_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::string class_name(const std::string& kind, const std::string& name) {
  std::string suffix = camel_case(kind);  // Dataset, Features, Oracle, Solver
  std::string c = camel_case(name);
  if (c.size() >= suffix.size() && c.compare(c.size() - suffix.size(), suffix.size(), suffix) == 0) return c;
  return c + suffix;
}

std::string camel_case(const std::string& name) {
  std::string out;
  bool up = true;
  for (char c : name) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    up = false;
  }
  return out;
}

std::vector<std::string> template_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("DUALGAP_TEMPLATE_DIR"); env && *env) dirs.emplace_back(env);
  try {
    fs::path exe = boost::dll::program_location().string();
    dirs.push_back((exe.parent_path().parent_path() / "share" / "dualgap" / "templates").string());
  } catch (...) {
  }
#ifdef DUALGAP_SOURCE_DIR
  dirs.push_back((fs::path(DUALGAP_SOURCE_DIR) / "core" / "share" / "templates").string());
#endif
  return dirs;
}

std::map<std::string, std::string> render_skeleton(const std::string& kind,
                                                   const std::string& name) {
  if (!known_kind(kind)) throw std::invalid_argument("unknown plugin kind '" + kind + "'");
  if (!valid_plugin_name(name)) throw std::invalid_argument("invalid plugin name '" + name + "': use " + std::string(kPluginNameRule));
  const fs::path root = find_templates(kind);
  std::map<std::string, std::string> files;
  // common/ first, then the kind's own files (which override common ones of the same name).
  for (const fs::path dir : {root / "common", root / kind}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      const std::string rel = replace_all(fs::relative(e.path(), dir).string(), "@NAME@", name);
      files[rel] = read_template(e.path());
    }
  }
  // Shared snippets (e.g. the conformance checks every generated test file starts with).
  std::error_code ec;
  if (fs::is_directory(root / "snippets", ec))
    for (const auto& e : fs::directory_iterator(root / "snippets")) {
      const std::string key = "@SNIPPET:" + e.path().filename().string() + "@";
      const std::string snippet = read_template(e.path());
      for (auto& [rel, text] : files) text = replace_all(text, key, snippet);
    }
  for (auto& [rel, text] : files) {
    text = replace_all(text, "@NAME@", name);
    text = replace_all(text, "@CLASS@", class_name(kind, name));
    text = replace_all(text, "@KIND@", kind);
    text = replace_all(text, "@VERSION@", kVersion);
    text = replace_all(text, "@API_VERSION@", std::to_string(kApiVersion));
  }
  return files;
}

void write_skeleton(const std::string& kind, const std::string& name, const std::string& dir, bool force,
                    std::ostream& log) {
  const auto files = render_skeleton(kind, name);
  const fs::path out = dir.empty() ? fs::path(name) : fs::path(dir);
  if (!force)
    for (const auto& [rel, text] : files)
      if (fs::exists(out / rel))
        throw std::runtime_error((out / rel).string() + " already exists (use --force to overwrite)");
  for (const auto& [rel, text] : files) {
    const fs::path p = out / rel;
    // Without --force a file that appeared since the check above is still not clobbered: the
    // name is taken only if free, at the moment it is taken.
    write_file_atomic(p.string(), text, force ? IfExists::replace : IfExists::refuse);
    log << "wrote " << p.string() << "\n";
  }
}

}  // namespace dualgap::scaffold
