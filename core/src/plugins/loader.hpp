// Plugin discovery and loading (Boost.DLL).
#pragma once

#include <boost/dll/shared_library.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dualgap/plugin.hpp"
#include "plugins/probe.hpp"

namespace dualgap {

class PluginLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The library's own code failed while it loaded (an exception out of a constructor or out of
/// its description function): `cause` says how ("threw std::runtime_error: ...").
class PluginFault : public PluginLoadError {
 public:
  PluginFault(const std::string& path, std::string cause)
      : PluginLoadError(path + ": not loaded: loading it " + cause), cause_(std::move(cause)) {}
  const std::string& cause() const { return cause_; }

 private:
  std::string cause_;
};

struct LoadedPlugin {
  std::string path;
  std::shared_ptr<boost::dll::shared_library> library;
  const PluginDescription* description = nullptr;
  const std::string& name() const { return description->name; }
  Kind kind() const { return description->kind; }
};

/// Loads one plugin file in this process. Throws PluginLoadError naming the file and the reason
/// (not a shared library, no `dualgap_plugin` data symbol, built for another API version). A
/// crash or exit() while it loads prints the file's name (PluginRegistry::scan keeps such files
/// out of the process altogether).
DUALGAP_API LoadedPlugin load_plugin_file(const std::string& path);

/// Creates an object of the plugin; the object keeps the plugin's library loaded.
template <class T>
std::shared_ptr<T> create_object(const LoadedPlugin& p, const Params& params) {
  std::unique_ptr<PluginObject> obj = p.description->create(params);
  T* typed = dynamic_cast<T*>(obj.get());
  if (!typed)
    throw PluginLoadError(p.path + ": plugin '" + p.name() + "' declares kind " +
                          to_string(p.kind()) + " but its object does not implement that interface");
  obj.release();
  auto lib = p.library;
  return std::shared_ptr<T>(typed, [lib](T* t) { delete static_cast<PluginObject*>(t); });
}

class DUALGAP_API PluginRegistry {
 public:
  /// The build dir's plugin folder, the install dir (relative to the executable), then each
  /// folder of DUALGAP_PLUGIN_PATH (colon-separated). Later folders win on name clashes.
  static std::vector<std::string> default_search_path();
  /// Finds the plugins of every *.so in the folders. Every file is first loaded in a child
  /// process (plugins/probe.hpp), which names a file whose loading crashes, calls exit() or hangs,
  /// and reports what each good file holds (kind and name): this process loads a plugin only
  /// when it is asked for (find, get, plugins), so a command loads the few it uses. Files that
  /// fail to load are reported in `problems`, each naming the file.
  void scan(const std::vector<std::string>& dirs, const ProbeOptions& probe = {});
  /// Scans `dirs` at the first query instead of now: a command that fails before it needs a
  /// plugin (a YAML error, an unknown key) loads none, which is most of the cost of a short command.
  void scan_on_first_query(std::vector<std::string> dirs);
  /// Calls `report` once the scan is done: now if it is, else right after it (the CLI prints the
  /// files that were not loaded there, before the error that their absence may cause).
  void when_scanned(std::function<void(const PluginRegistry&)> report);
  /// Throws std::runtime_error listing the available plugins of that kind when missing.
  const LoadedPlugin& get(Kind kind, const std::string& name) const;
  const LoadedPlugin* find(Kind kind, const std::string& name) const;
  /// Looks a name up over all kinds (for `describe`).
  std::vector<const LoadedPlugin*> find_any(const std::string& name) const;
  /// Every plugin, each loaded (for listing them; a file that fails to load here joins `problems`).
  std::vector<LoadedPlugin> plugins() const;
  const std::vector<std::string>& problems() const {
    scan_if_deferred();
    return problems_;
  }
  /// Plugins that replaced another of the same kind and name found earlier on the path.
  const std::vector<std::string>& warnings() const {
    scan_if_deferred();
    return warnings_;
  }
  std::vector<std::string> names(Kind kind) const;

  /// Creates an object of a registered plugin with already-validated parameters.
  template <class T>
  std::shared_ptr<T> create(Kind kind, const std::string& name, const Params& params) const {
    return create_object<T>(get(kind, name), params);
  }

 private:
  /// The deferred scan, at the first query. Not thread-safe until then: the CLI queries the
  /// process-wide registry on its main thread before it starts any other.
  void scan_if_deferred() const;
  /// A plugin file: what the discovery process found in it, and, once asked for, the plugin
  /// loaded in this process.
  struct Entry {
    std::string path;
    Kind kind;
    std::string name;
    std::optional<LoadedPlugin> loaded;
    bool failed = false;  ///< loading it here failed (reported): no longer offered
  };
  /// Adds a file's plugin; of two with one kind and name, the later folder's wins (a warning).
  void add(Entry e);
  /// The entry's plugin, loaded at its first use. Throws PluginLoadError naming the file.
  const LoadedPlugin& load(const Entry& e) const;

  mutable std::deque<Entry> entries_;  // a deque: what find returned stays valid
  mutable std::vector<std::string> problems_;  // plugins() adds a file that fails to load late
  std::vector<std::string> warnings_;
  std::optional<std::vector<std::string>> deferred_;
  std::function<void(const PluginRegistry&)> report_;
};

/// When no plugin `name` (of `kind`, or of any kind) is loaded but the source tree holds
/// plugins/<kind>/<name>/CMakeLists.txt, how to build it: "the source tree has
/// <dir> but its plugin is not built: cmake --build <build> --target dualgap_<name>", and for an
/// installed dualgap (`install_prefix` not empty) how to install it there; else "".
/// The folders default to those this dualgap was built from, and the prefix to the one this
/// program runs from when it is not the build tree's.
DUALGAP_API std::string unbuilt_plugin_hint(const std::string& name, std::optional<Kind> kind);
DUALGAP_API std::string unbuilt_plugin_hint(const std::string& name, std::optional<Kind> kind,
                                            const std::string& source_dir, const std::string& build_dir,
                                            const std::string& install_prefix = "");

/// The process-wide registry over default_search_path(), scanned at its first query.
DUALGAP_API PluginRegistry& registry();

}  // namespace dualgap
