#include "plugins/loader.hpp"

#include "plugins/elf_check.hpp"
#include "plugins/probe.hpp"
#include "base/util.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <boost/core/demangle.hpp>
#include <boost/dll/runtime_symbol_info.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <mutex>
#include <typeinfo>
#include <utility>

namespace dualgap {
namespace fs = std::filesystem;

namespace {

constexpr const char* kEntrySymbol = "dualgap_plugin";

bool looks_like_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

// --- The last line of defence in this process. Discovery loads every file in a child first
// (plugins/probe.hpp), so a library that crashes or exits there is never loaded here; one that
// does so only on its second load (or when no child could be started) still names itself:
// while a file loads, a crash signal prints the file before the signal goes on to the handler
// that was there before (the default: end the process; a sanitizer: its report), and exit()
// prints it and ends with status 1 instead of the library's (a silent 0).
std::mutex g_load_mutex;  // one load at a time: the handlers read one file name
char g_loading[4096];
volatile std::sig_atomic_t g_loading_set = 0;
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
struct sigaction g_previous[std::size(kCrashSignals)];

void say_to_stderr(const char* s) {
  for (std::size_t n = std::strlen(s); n > 0;) {
    const ssize_t k = ::write(STDERR_FILENO, s, n);
    if (k <= 0) return;
    s += k;
    n -= static_cast<std::size_t>(k);
  }
}

void on_crash_while_loading(int sig) {
  say_to_stderr("dualgap: a crash (signal ");
  char num[16];
  int n = 0;
  for (int v = sig; v > 0 && n < 15; v /= 10) num[n++] = static_cast<char>('0' + v % 10);
  for (int a = 0, b = n - 1; a < b; ++a, --b) std::swap(num[a], num[b]);
  num[n] = '\0';
  say_to_stderr(num);
  say_to_stderr(") while loading the plugin file ");
  say_to_stderr(g_loading);
  say_to_stderr("\n");
  for (std::size_t k = 0; k < std::size(kCrashSignals); ++k)
    if (kCrashSignals[k] == sig) ::sigaction(sig, &g_previous[k], nullptr);
  ::raise(sig);  // blocked until this handler returns, then the previous handler has it
}

void on_exit_while_loading() {
  if (!g_loading_set) return;
  say_to_stderr("dualgap: the plugin file ");
  say_to_stderr(g_loading);
  say_to_stderr(" called exit() while loading; stopping with exit status 1\n");
  ::_exit(1);
}

class LoadGuard {
 public:
  explicit LoadGuard(const std::string& path) : lock_(g_load_mutex) {
    static std::once_flag once;
    std::call_once(once, [] { std::atexit(on_exit_while_loading); });
    std::snprintf(g_loading, sizeof g_loading, "%s", path.c_str());
    struct sigaction sa {};
    sa.sa_handler = on_crash_while_loading;
    sigemptyset(&sa.sa_mask);
    for (std::size_t k = 0; k < std::size(kCrashSignals); ++k) ::sigaction(kCrashSignals[k], &sa, &g_previous[k]);
    g_loading_set = 1;
  }
  ~LoadGuard() {
    g_loading_set = 0;
    for (std::size_t k = 0; k < std::size(kCrashSignals); ++k) ::sigaction(kCrashSignals[k], &g_previous[k], nullptr);
  }
  LoadGuard(const LoadGuard&) = delete;
  LoadGuard& operator=(const LoadGuard&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
};

/// The reason dlopen gives (Boost.DLL keeps only an errno-like code): a second dlopen of a file
/// that failed to load fails again and leaves its message in dlerror().
std::string dlopen_error(const std::string& path, const std::string& fallback) {
  ::dlerror();
  if (void* h = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(h);
    return fallback;
  }
  const char* e = ::dlerror();
  return e ? e : fallback;
}

/// Whether `p` points into one of the library's executable segments.
bool points_into_code(void* handle, const void* p, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& code) {
  link_map* lm = nullptr;
  if (!p || ::dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm) return false;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  if (at < lm->l_addr) return false;
  const std::uint64_t rel = at - lm->l_addr;
  return std::any_of(code.begin(), code.end(), [&](const auto& r) { return rel >= r.first && rel < r.second; });
}

/// Loads one file in this process without the guard (the discovery child runs this: it has its
/// own handlers).
LoadedPlugin load_unguarded(const std::string& path) {
  if (!fs::exists(path)) throw PluginLoadError(path + ": no such file");
  if (!looks_like_elf(path))
    throw PluginLoadError(path + ": not a plugin: the file is not a shared library (no ELF header)");
  if (const std::string bad = elf_problem(path); !bad.empty()) throw PluginLoadError(path + ": not a plugin: " + bad);
  // The entry symbol's type and size, from the file: a function of that name would be called
  // through as if it held a function pointer.
  const ElfSymbolInfo sym = elf_data_symbol(path, kEntrySymbol, sizeof(void*));
  if (!sym.problem.empty())
    throw PluginLoadError(path + ": not a dualgap plugin: " + sym.problem +
                          (sym.found ? "" : " (define it with DUALGAP_PLUGIN(describe_function))"));
  // The library's own code runs in dlopen (its constructors) and in the description function:
  // an exception out of either is its fault, named as such.
  auto library_code = [&](auto&& run) {
    try {
      return run();
    } catch (const std::exception& e) {
      throw PluginFault(path, "threw " + boost::core::demangle(typeid(e).name()) + ": " + e.what());
    } catch (...) {
      throw PluginFault(path, "threw an exception that is not a std::exception");
    }
  };
  auto lib = std::make_shared<boost::dll::shared_library>();
  boost::dll::fs::error_code ec;
  library_code([&] { lib->load(path, boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local, ec); });
  if (ec)
    throw PluginLoadError(path + ": not a plugin: cannot load the shared library: " + dlopen_error(path, ec.message()));
  if (!lib->has(kEntrySymbol))
    throw PluginLoadError(path + ": not a dualgap plugin: the library exports no 'dualgap_plugin' "
                                 "symbol (define it with DUALGAP_PLUGIN(describe_function))");
  // BOOST_DLL_ALIAS exports a pointer to the function under the alias name: it must point into
  // the library's own code.
  void* const entry = lib->get<void*>(kEntrySymbol);
  if (!points_into_code(lib->native(), entry, sym.code))
    throw PluginLoadError(fmt::format("{}: not a dualgap plugin: '{}' holds {}, not the address of a function of the "
                                      "library (define it with DUALGAP_PLUGIN(describe_function))",
                                      path, kEntrySymbol, entry));
  using HeaderFn = const PluginHeader*();
  HeaderFn* fn = reinterpret_cast<HeaderFn*>(entry);
  const PluginHeader* h = library_code([&] { return fn(); });
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

}  // namespace

LoadedPlugin load_plugin_file(const std::string& path) {
  LoadGuard guard(path);
  return load_unguarded(path);
}

namespace {

/// Whether the program `exe` lives in the build tree `build_root` (not an installed copy).
bool in_build_tree(const fs::path& exe, const fs::path& build_root) {
  const std::string e = fs::weakly_canonical(exe).string();
  const std::string b = fs::weakly_canonical(build_root).string();
  return e.rfind(b + "/", 0) == 0;
}

}  // namespace

std::vector<std::string> PluginRegistry::default_search_path() {
  std::vector<std::string> dirs;
  // The build tree's plugins only for programs that live in that build tree: an installed
  // dualgap sees the installed plugins (and DUALGAP_PLUGIN_PATH), not a stale build folder.
  const fs::path build_root = fs::path(DUALGAP_BUILD_PLUGIN_DIR).parent_path();
  try {
    fs::path exe = boost::dll::program_location().string();
    if (in_build_tree(exe, build_root)) dirs.emplace_back(DUALGAP_BUILD_PLUGIN_DIR);
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

namespace {

std::string shadow_warning(Kind kind, const std::string& name, const std::string& path, const std::string& earlier) {
  return "the " + std::string(to_string(kind)) + " plugin '" + name + "' of " + path + " shadows the one of " +
         earlier + " (a later folder on the plugin path wins)";
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

}  // namespace

void PluginRegistry::add(Entry e) {
  for (auto& q : entries_)
    if (q.kind == e.kind && q.name == e.name) {
      if (same_file(q.path, e.path)) return;
      warnings_.push_back(shadow_warning(e.kind, e.name, e.path, q.path));
      q = std::move(e);  // later folders win (during the scan: nothing points into entries_ yet)
      return;
    }
  entries_.push_back(std::move(e));
}

const LoadedPlugin& PluginRegistry::load(const Entry& e) const {
  if (e.loaded) return *e.loaded;
  auto& entry = const_cast<Entry&>(e);  // loading is not a change of the registry's contents
  try {
    LoadedPlugin p = load_plugin_file(e.path);  // throws PluginLoadError naming the file
    if (p.kind() != e.kind || p.name() != e.name)
      throw PluginLoadError(e.path + ": not loaded: it holds the " + to_string(p.kind()) + " plugin '" + p.name() +
                            "' here but the " + to_string(e.kind) + " plugin '" + e.name +
                            "' in the discovery process (the file changed while this command ran?)");
    entry.loaded = std::move(p);
  } catch (...) {
    entry.failed = true;
    throw;
  }
  return *entry.loaded;
}

void PluginRegistry::scan(const std::vector<std::string>& dirs, const ProbeOptions& probe) {
  std::vector<std::string> seen, files;
  for (const auto& d : dirs) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) continue;
    auto canon = fs::weakly_canonical(d, ec).string();
    if (std::find(seen.begin(), seen.end(), canon) != seen.end()) continue;
    seen.push_back(canon);
    std::vector<fs::path> in_dir;
    for (auto& e : fs::directory_iterator(d, ec))
      if (e.path().extension() == ".so") in_dir.push_back(e.path());
    std::sort(in_dir.begin(), in_dir.end());
    for (auto& f : in_dir) files.push_back(f.string());
  }
  if (files.empty()) return;
  // Every file first in one child process: a library that crashes, exits or hangs while it
  // loads is named there and never loaded here. The child answers "P KIND NAME" for a plugin
  // and "R MESSAGE" for a file the loader refused (not a library, another API version, ...).
  const ProbeReport vetted = probe_in_child(
      files,
      [](const std::string& f) -> std::string {
        try {
          const auto* p = new LoadedPlugin(load_unguarded(f));  // kept loaded until the child ends
          return std::string("P ") + to_string(p->kind()) + " " + p->name();
        } catch (const PluginFault& e) {
          throw std::runtime_error(e.cause());  // the file's own fault: the child reports it and ends
        } catch (const PluginLoadError& e) {
          return std::string("R ") + e.what();
        }
      },
      probe);
  if (!vetted.not_probed.empty())
    warnings_.push_back("the plugin files were loaded without a discovery process first (" + vetted.not_probed +
                        "): a library that crashes while it loads stops this command");
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!vetted.problems[i].empty()) {
      problems_.push_back(files[i] + ": not loaded: " + vetted.problems[i] +
                          " (found by loading each plugin file in a separate process first)");
      continue;
    }
    const std::string& answer = vetted.answers[i];
    if (answer.rfind("R ", 0) == 0) {
      problems_.push_back(answer.substr(2));  // the loader's message, which names the file
      continue;
    }
    Kind kind{};
    if (answer.rfind("P ", 0) == 0) {
      const auto sp = answer.find(' ', 2);
      const std::string name = sp == std::string::npos ? "" : answer.substr(sp + 1);
      // A name the protocol cannot carry as it is (printable() changed it) is loaded here at once.
      if (sp != std::string::npos && parse_kind(answer.substr(2, sp - 2), kind) && !name.empty() &&
          printable(name) == name) {
        add(Entry{files[i], kind, name, std::nullopt});
        continue;
      }
    }
    try {  // not probed, or an answer this process cannot read: load it here
      LoadedPlugin p = load_plugin_file(files[i]);
      add(Entry{p.path, p.kind(), p.name(), std::move(p)});
    } catch (const PluginLoadError& ex) {  // names the file
      problems_.push_back(ex.what());
    } catch (const std::exception& ex) {
      problems_.push_back(files[i] + ": not loaded: " + ex.what());
    }
  }
}

void PluginRegistry::scan_on_first_query(std::vector<std::string> dirs) { deferred_ = std::move(dirs); }

void PluginRegistry::when_scanned(std::function<void(const PluginRegistry&)> report) {
  if (!deferred_) {  // scanned already (or never deferred)
    report(*this);
    return;
  }
  report_ = std::move(report);
}

void PluginRegistry::scan_if_deferred() const {
  if (!deferred_) return;
  // The registry is logically unchanged by a scan that was only postponed. deferred_ is cleared
  // first, so that the report (and anything the scan queries) sees a scanned registry.
  auto* self = const_cast<PluginRegistry*>(this);
  const std::vector<std::string> dirs = std::move(*self->deferred_);
  self->deferred_.reset();
  self->scan(dirs);
  if (report_) report_(*this);
}

const LoadedPlugin* PluginRegistry::find(Kind kind, const std::string& name) const {
  scan_if_deferred();
  for (const auto& e : entries_)
    if (!e.failed && e.kind == kind && e.name == name) return &load(e);
  return nullptr;
}

std::vector<LoadedPlugin> PluginRegistry::plugins() const {
  scan_if_deferred();
  std::vector<LoadedPlugin> out;
  for (const auto& e : entries_) {
    if (e.failed) continue;
    try {
      out.push_back(load(e));
    } catch (const PluginLoadError& ex) {
      problems_.push_back(ex.what());
    }
  }
  return out;
}

std::vector<const LoadedPlugin*> PluginRegistry::find_any(const std::string& name) const {
  scan_if_deferred();
  std::vector<const LoadedPlugin*> out;
  for (const auto& e : entries_)
    if (!e.failed && e.name == name) out.push_back(&load(e));
  return out;
}

std::vector<std::string> PluginRegistry::names(Kind kind) const {
  scan_if_deferred();
  std::vector<std::string> out;
  for (const auto& e : entries_)
    if (!e.failed && e.kind == kind) out.push_back(e.name);
  std::sort(out.begin(), out.end());
  return out;
}

const LoadedPlugin& PluginRegistry::get(Kind kind, const std::string& name) const {
  if (auto* p = find(kind, name)) return *p;
  std::string list;
  for (auto& n : names(kind)) list += (list.empty() ? "" : ", ") + n;
  const std::string hint = unbuilt_plugin_hint(name, kind);
  throw std::runtime_error(std::string("no ") + to_string(kind) + " plugin named '" + name +
                           "' (available: " + (list.empty() ? "none" : list) +
                           "; plugin folders: build dir, install dir, DUALGAP_PLUGIN_PATH)" +
                           (hint.empty() ? "" : "; " + hint));
}

std::string unbuilt_plugin_hint(const std::string& name, std::optional<Kind> kind, const std::string& source_dir,
                                const std::string& build_dir, const std::string& install_prefix) {
  // Plugin folder names are identifiers: anything else (a path, "..") is not looked up.
  if (name.empty() || name.size() > 200 ||
      !std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    return "";
  for (Kind k : {Kind::dataset, Kind::features, Kind::oracle, Kind::solver}) {
    if (kind && k != *kind) continue;
    const fs::path dir = fs::path(source_dir) / "plugins" / to_string(k) / name;
    std::error_code ec;
    if (!fs::is_regular_file(dir / "CMakeLists.txt", ec)) continue;
    std::string hint = fmt::format("the source tree has {} but its plugin is not built: cmake --build {} --target dualgap_{}",
                                   dir.string(), build_dir, name);
    // An installed dualgap sees the plugins of its prefix, not the build folder's.
    if (!install_prefix.empty())
      hint += fmt::format(", then cmake --install {} --component plugins --prefix {}", build_dir, install_prefix);
    return hint;
  }
  return "";
}

std::string unbuilt_plugin_hint(const std::string& name, std::optional<Kind> kind) {
  const fs::path build_root = fs::path(DUALGAP_BUILD_PLUGIN_DIR).parent_path();
  std::string prefix;
  try {
    const fs::path exe = boost::dll::program_location().string();
    if (!in_build_tree(exe, build_root)) prefix = exe.parent_path().parent_path().string();
  } catch (...) {
  }
  return unbuilt_plugin_hint(name, kind, DUALGAP_SOURCE_DIR, build_root.string(), prefix);
}

PluginRegistry& registry() {
  static PluginRegistry r = [] {
    PluginRegistry reg;
    reg.scan_on_first_query(PluginRegistry::default_search_path());
    return reg;
  }();
  return r;
}

}  // namespace dualgap
