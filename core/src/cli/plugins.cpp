// `dualgap plugins` and `dualgap describe`: the plugins found on the plugin path.
#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "base/util.hpp"
#include "base/files.hpp"
#include "cli/entries.hpp"
#include "cli/params_table.hpp"
#include "data/options.hpp"
#include "plugins/loader.hpp"

namespace dualgap::cli {

namespace {

Checked<Kind>* kind_choice() {
  return choice<Kind>(
      {{"dataset", Kind::dataset}, {"features", Kind::features}, {"oracle", Kind::oracle}, {"solver", Kind::solver}},
      false);
}

void print_registry_problems(const PluginRegistry& reg) {
  for (auto& p : reg.problems()) std::cerr << "warning: " << p << "\n";
  for (auto& w : reg.warnings()) std::cerr << "warning: " << w << "\n";
}

/// What a solver needs from an oracle, or what an oracle offers, and the loaded plugins on the
/// other side (the pairing `validate` checks).
void print_interfaces(const PluginDescription& d, const PluginRegistry& reg) {
  auto shares = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
  };
  auto others = [&](Kind k, const std::function<bool(const PluginDescription&)>& keep) {
    std::vector<std::string> out;
    for (auto& p : reg.plugins())
      if (p.kind() == k && keep(*p.description)) out.push_back(p.name());
    std::sort(out.begin(), out.end());
    return out.empty() ? std::string("none loaded") : fmt::format("{}", fmt::join(out, ", "));
  };
  if (d.kind == Kind::solver) {
    if (d.accepts.empty())
      std::cout << "  needs: no oracle interface (it runs with any oracle, or none)\n";
    else
      std::cout << fmt::format("  needs: an oracle offering one of [{}]\n    oracles that do: {}\n",
                               fmt::join(d.accepts, ", "),
                               others(Kind::oracle, [&](const PluginDescription& o) { return shares(d.accepts, o.interfaces); }));
  } else if (d.kind == Kind::oracle) {
    std::cout << fmt::format("  offers: [{}]\n    solvers that accept it: {}\n", fmt::join(d.interfaces, ", "),
                             others(Kind::solver, [&](const PluginDescription& sv) { return shares(sv.accepts, d.interfaces); }));
  }
}

void print_schema(const PluginDescription& d) {
  std::cout << "\nparameters:\n";
  if (d.params.empty()) std::cout << "  (none)\n";
  for (auto& s : d.params) {
    std::string range;
    if (s.min || s.max)
      range = fmt::format(" range [{}, {}]", s.min ? fmt::format("{}", *s.min) : "-inf",
                          s.max ? fmt::format("{}", *s.max) : "inf");
    if (!s.choices.empty()) range = fmt::format(" one of {{{}}}", fmt::join(s.choices, ", "));
    for (auto& [name, value] : s.named.items()) range += " or " + name;
    std::string def = s.default_value.is_null() ? (s.optional ? "optional" : "required") : "default " + json_text(s.default_value);
    std::cout << fmt::format("  {:<18} {:<14} {}{}\n      {}\n", s.name, to_string(s.type), def, range, s.doc);
  }
  if (d.kind == Kind::dataset) {
    std::vector<std::string> core;
    for (auto& c : data_schema(d.params))
      if (std::none_of(d.params.begin(), d.params.end(), [&](const ParamSpec& o) { return o.name == c.name; }))
        core.push_back(c.name);
    std::cout << fmt::format("\nand the core data: keys (docs/data.md): {}, validation\n", fmt::join(core, ", "));
  }
}

}  // namespace

void plugins_options(po::options_description& d) {
  d.add_options()("kind", kind_choice(), "dataset, features, oracle or solver")("json", "machine-readable output")(
      "paths", "also print the folders searched, in order");
}

int plugins_main(const Args& a) {
  const std::optional<Kind> only = a.maybe<Kind>("kind");
  auto& reg = registry();
  if (a.has("json")) {
    json out = json::array();
    for (auto& p : reg.plugins()) {
      if (only && p.kind() != *only) continue;
      out.push_back({{"name", p.name()}, {"kind", to_string(p.kind())}, {"version", p.description->version},
                     {"summary", p.description->summary}, {"path", p.path}});
    }
    std::cout << json_text(out, 2) << "\n";
    print_registry_problems(reg);
    return 0;
  }
  for (Kind k : {Kind::dataset, Kind::features, Kind::oracle, Kind::solver}) {
    if (only && k != *only) continue;
    std::cout << to_string(k) << ":\n";
    for (auto& p : reg.plugins())
      if (p.kind() == k)
        std::cout << fmt::format("  {:<22} {:<7} {}\n  {:<22} {:<7} file: {}\n", p.name(), p.description->version,
                                 p.description->summary, "", "", p.path);
  }
  if (a.has("paths"))
    for (auto& dir : PluginRegistry::default_search_path()) std::cout << "searched: " << dir << "\n";
  print_registry_problems(reg);
  return 0;
}

void describe_options(po::options_description& d) {
  d.add_options()("kind", kind_choice(), "disambiguate by kind")(
      "markdown", "print only the parameter table, in Markdown (the table of the plugin's README)")(
      "readme", output_path(),
      "write the parameter table into this README, between its lines <!-- params:begin --> and "
      "<!-- params:end -->")("check", "with --readme: write nothing; exit 1 naming the README's first line that "
                                      "differs from the table");
}

namespace {

/// --markdown and --readme: the table of exactly one plugin.
int describe_table(const Args& a, const LoadedPlugin& plugin) {
  const PluginDescription& d = *plugin.description;
  const std::string table = params_markdown(d);
  if (a.has("markdown")) {
    std::cout << table;
    return 0;
  }
  const std::string file = a.get<std::string>("readme");
  const std::string readme = read_file(file);
  const std::string command = fmt::format("dualgap describe {} --kind {}", d.name, to_string(d.kind));
  if (a.has("check")) {
    const auto m = params_table_mismatch(readme, table, file);
    if (!m) return 0;
    std::cerr << fmt::format(
        "{}:{}: the parameter table differs from '{} --markdown':\n  README:   {}\n  describe: {}\n"
        "(rewrite it with '{} --readme {}')\n",
        file, m->line, command, printable(m->readme), printable(m->expected), command, file);
    return 1;
  }
  const std::string updated = with_params_table(readme, table, file);
  if (updated != readme) {
    write_file_atomic(file, updated);
    std::cout << "wrote the parameter table of " << file << "\n";
  }
  return 0;
}

}  // namespace

int describe_main(const Args& a) {
  auto& reg = registry();
  const std::string name = a.text("plugin");
  const std::optional<Kind> kind = a.maybe<Kind>("kind");
  const bool table = a.has("markdown") || a.has("readme");
  if (a.has("markdown") && a.has("readme")) throw UsageError("--markdown prints the table, --readme writes it: give one");
  if (a.has("check") && !a.has("readme")) throw UsageError("--check compares the table of a README: give --readme FILE");
  auto found = reg.find_any(name);
  if (kind) std::erase_if(found, [&](auto* p) { return p->kind() != *kind; });
  if (found.empty()) {
    const std::string hint = unbuilt_plugin_hint(name, kind);
    print_registry_problems(reg);
    throw bad_value("PLUGIN", name,
                    "a plugin name of 'dualgap plugins'; no plugin has this name" + (hint.empty() ? "" : "; " + hint));
  }
  if (table) {
    if (found.size() > 1) {
      std::vector<std::string> kinds;
      for (auto* p : found) kinds.push_back(to_string(p->kind()));
      throw UsageError(fmt::format("several plugins are named '{}' ({}): give --kind", name, fmt::join(kinds, ", ")));
    }
    return describe_table(a, *found.front());
  }
  for (auto* p : found) {
    const auto& d = *p->description;
    std::cout << fmt::format("{} ({} plugin, version {})\n  {}\n  file: {}\n", d.name, to_string(d.kind), d.version,
                             d.summary, p->path);
    print_interfaces(d, reg);
    if (d.validate_data)
      std::cout << "  checks its parameters against the prepared data (n, d, K, class names) in 'dualgap validate' "
                   "and before each run\n";
    print_schema(d);
  }
  return 0;
}

}  // namespace dualgap::cli
