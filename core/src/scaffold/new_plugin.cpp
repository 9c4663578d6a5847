#include "scaffold/new_plugin.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/program_options.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "base/files.hpp"
#include "base/output_option.hpp"
#include "base/util.hpp"  // printable
#include "dualgap/plugin.hpp"

namespace dualgap::scaffold {
namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace {

const char* const kKinds[] = {"dataset", "features", "oracle", "solver"};

#define NAME_RULE "lower case letters, digits and '_', starting with a letter, at most 64 characters"

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

const char* kUsage =
    "usage: dualgap new-plugin KIND NAME [--dir DIR] [--force]\n"
    "\n"
    "Writes a working plugin skeleton of KIND (dataset, features, oracle, solver) named NAME\n"
    "into DIR (default ./NAME): NAME.cpp, CMakeLists.txt, README.md, experiment.yaml and\n"
    "test_NAME.cpp. NAME: " NAME_RULE ".\n"
    "The plugin's class is NAME in CamelCase ending in the kind (my_chain: MyChainOracle), a form\n"
    "no other name of the skeleton takes, so any such NAME builds unchanged, inside the dualgap\n"
    "tree (plugins/KIND/NAME) or on its own against an installed dualgap:\n"
    "  cmake -S NAME -B NAME/build -DCMAKE_PREFIX_PATH=<dualgap prefix> && cmake --build NAME/build\n"
    "  ctest --test-dir NAME/build\n"
    "  DUALGAP_PLUGIN_PATH=$PWD/NAME/build/plugins dualgap describe NAME\n"
    "\n";

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
  if (!valid_plugin_name(name)) throw std::invalid_argument("invalid plugin name '" + name + "': use " NAME_RULE);
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

int new_plugin_main(const std::vector<std::string>& args) {
  std::string kind, name, dir;
  bool force = false, help = false;
  po::options_description opts("options");
  opts.add_options()("help,h", po::bool_switch(&help), "show this help")(
      "dir", output_path(&dir, "--dir"), "output folder (default ./NAME)")(
      "force", po::bool_switch(&force), "overwrite existing files");
  po::options_description hidden;
  hidden.add_options()("kind", po::value<std::string>(&kind))("name", po::value<std::string>(&name));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("kind", 1).add("name", 1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "dualgap new-plugin: " << e.what() << "\n" << kUsage << opts;
    return 2;
  }
  if (help) {
    std::cout << kUsage << opts;
    return 0;
  }
  if (kind.empty() || name.empty()) {
    std::cerr << "dualgap new-plugin: KIND and NAME are required\n" << kUsage << opts;
    return 2;
  }
  if (!known_kind(kind)) {
    std::cerr << "dualgap new-plugin: unknown kind '" << kind
              << "' (choose one of: dataset, features, oracle, solver)\n";
    return 2;
  }
  if (!valid_plugin_name(name)) {
    std::cerr << "dualgap new-plugin: invalid name '" << printable(name) << "': use " NAME_RULE " (e.g. my_oracle)\n";
    return 2;
  }
  try {
    const auto files = render_skeleton(kind, name);
    const fs::path out = dir.empty() ? fs::path(name) : fs::path(dir);
    if (!force)
      for (const auto& [rel, text] : files)
        if (fs::exists(out / rel)) {
          std::cerr << "dualgap new-plugin: " << (out / rel).string()
                    << " already exists (use --force to overwrite)\n";
          return 1;
        }
    for (const auto& [rel, text] : files) {
      const fs::path p = out / rel;
      // Without --force a file that appeared since the check above is still not clobbered: the
      // name is taken only if free, at the moment it is taken.
      write_file_atomic(p.string(), text, force ? IfExists::replace : IfExists::refuse);
      std::cout << "wrote " << p.string() << "\n";
    }
    const std::string o = out.string();
    std::cout << "\nnext steps:\n"
              << "  cmake -S " << o << " -B " << o << "/build -DCMAKE_PREFIX_PATH=<dualgap prefix>\n"
              << "  cmake --build " << o << "/build\n"
              << "  ctest --test-dir " << o << "/build --output-on-failure\n"
              << "  export DUALGAP_PLUGIN_PATH=" << fs::absolute(out).lexically_normal().string()
              << "/build/plugins\n"
              << "  dualgap describe " << name << "\n"
              << "  dualgap run " << o << "/experiment.yaml\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "dualgap new-plugin: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace dualgap::scaffold
