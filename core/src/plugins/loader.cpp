#include "plugins/loader.hpp"

#include "plugins/elf_check.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>

namespace dualgap {
namespace fs = std::filesystem;

namespace {
bool looks_like_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}
}  // namespace

LoadedPlugin load_plugin_file(const std::string& path) {
  if (!fs::exists(path)) throw PluginLoadError(path + ": no such file");
  if (!looks_like_elf(path))
    throw PluginLoadError(path + ": not a plugin: the file is not a shared library (no ELF header)");
  if (const std::string bad = elf_problem(path); !bad.empty()) throw PluginLoadError(path + ": not a plugin: " + bad);
  auto lib = std::make_shared<boost::dll::shared_library>();
  boost::dll::fs::error_code ec;
  lib->load(path, boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local, ec);
  if (ec) throw PluginLoadError(path + ": not a plugin: cannot load the shared library: " + ec.message() +
                                " (" + (dlerror() ? "" : "") + ")");
  if (!lib->has("dualgap_plugin"))
    throw PluginLoadError(path + ": not a dualgap plugin: the library exports no 'dualgap_plugin' "
                                 "symbol (define it with DUALGAP_PLUGIN(describe_function))");
  using HeaderFn = const PluginHeader*();
  // BOOST_DLL_ALIAS exports a pointer to the function under the alias name.
  HeaderFn* fn = lib->get_alias<HeaderFn>("dualgap_plugin");
  const PluginHeader* h = fn();
  if (!h) throw PluginLoadError(path + ": the 'dualgap_plugin' symbol returned no description");
  if (h->api_version != kApiVersion)
    throw PluginLoadError(path + ": plugin '" + (h->name ? h->name : "?") +
                          "' was built for dualgap plugin API version " + std::to_string(h->api_version) +
                          ", but this dualgap has API version " + std::to_string(kApiVersion) +
                          ": rebuild the plugin against this dualgap");
  if (h->kind < 0 || h->kind > 3 || !h->description)
    throw PluginLoadError(path + ": plugin description is malformed (kind " + std::to_string(h->kind) + ")");
  LoadedPlugin p;
  p.path = fs::absolute(path).string();
  p.library = std::move(lib);
  p.description = h->description;
  if (p.description->name.empty()) throw PluginLoadError(path + ": plugin has an empty name");
  if (!p.description->create) throw PluginLoadError(path + ": plugin '" + p.name() + "' has no factory");
  if (p.description->eigen_max_align_bytes != kEigenMaxAlignBytes)
    throw PluginLoadError(path + ": plugin '" + p.name() + "' was compiled with EIGEN_MAX_ALIGN_BYTES = " +
                          std::to_string(p.description->eigen_max_align_bytes) + ", but the plugin ABI is " +
                          std::to_string(kEigenMaxAlignBytes) + " (see dualgap/eigen_abi.hpp): rebuild it linking dualgap::core");
  return p;
}

std::vector<std::string> PluginRegistry::default_search_path() {
  std::vector<std::string> dirs;
  // The build tree's plugins only for programs that live in that build tree: an installed
  // dualgap sees the installed plugins (and DUALGAP_PLUGIN_PATH), not a stale build folder.
  const fs::path build_root = fs::path(DUALGAP_BUILD_PLUGIN_DIR).parent_path();
  try {
    fs::path exe = boost::dll::program_location().string();
    const std::string e = fs::weakly_canonical(exe).string();
    const std::string b = fs::weakly_canonical(build_root).string();
    if (e.rfind(b + "/", 0) == 0) dirs.emplace_back(DUALGAP_BUILD_PLUGIN_DIR);
    dirs.push_back((exe.parent_path().parent_path() / DUALGAP_INSTALL_PLUGIN_REL).string());
  } catch (...) {
    dirs.emplace_back(DUALGAP_BUILD_PLUGIN_DIR);
  }
  if (const char* env = std::getenv("DUALGAP_PLUGIN_PATH")) {
    std::string s = env;
    std::size_t b = 0;
    while (b <= s.size()) {
      auto e = s.find(':', b);
      if (e == std::string::npos) e = s.size();
      if (e > b) dirs.push_back(s.substr(b, e - b));
      b = e + 1;
    }
  }
  return dirs;
}

void PluginRegistry::add(LoadedPlugin p) {
  for (auto& q : plugins_)
    if (q.kind() == p.kind() && q.name() == p.name()) {
      if (fs::equivalent(q.path, p.path)) return;
      warnings_.push_back("the " + std::string(to_string(p.kind())) + " plugin '" + p.name() + "' of " + p.path +
                          " shadows the one of " + q.path + " (a later folder on the plugin path wins)");
      q = std::move(p);  // later folders win
      return;
    }
  plugins_.push_back(std::move(p));
}

void PluginRegistry::scan(const std::vector<std::string>& dirs) {
  std::vector<std::string> seen;
  for (const auto& d : dirs) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) continue;
    auto canon = fs::weakly_canonical(d, ec).string();
    if (std::find(seen.begin(), seen.end(), canon) != seen.end()) continue;
    seen.push_back(canon);
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(d, ec))
      if (e.path().extension() == ".so") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (auto& f : files) {
      try {
        add(load_plugin_file(f.string()));
      } catch (const std::exception& ex) {
        problems_.push_back(ex.what());
      }
    }
  }
}

const LoadedPlugin* PluginRegistry::find(Kind kind, const std::string& name) const {
  for (auto& p : plugins_)
    if (p.kind() == kind && p.name() == name) return &p;
  return nullptr;
}

std::vector<const LoadedPlugin*> PluginRegistry::find_any(const std::string& name) const {
  std::vector<const LoadedPlugin*> out;
  for (auto& p : plugins_)
    if (p.name() == name) out.push_back(&p);
  return out;
}

std::vector<std::string> PluginRegistry::names(Kind kind) const {
  std::vector<std::string> out;
  for (auto& p : plugins_)
    if (p.kind() == kind) out.push_back(p.name());
  std::sort(out.begin(), out.end());
  return out;
}

const LoadedPlugin& PluginRegistry::get(Kind kind, const std::string& name) const {
  if (auto* p = find(kind, name)) return *p;
  std::string list;
  for (auto& n : names(kind)) list += (list.empty() ? "" : ", ") + n;
  throw std::runtime_error(std::string("no ") + to_string(kind) + " plugin named '" + name +
                           "' (available: " + (list.empty() ? "none" : list) +
                           "; plugin folders: build dir, install dir, DUALGAP_PLUGIN_PATH)");
}

PluginRegistry& registry() {
  static PluginRegistry r = [] {
    PluginRegistry reg;
    reg.scan(PluginRegistry::default_search_path());
    return reg;
  }();
  return r;
}

}  // namespace dualgap
