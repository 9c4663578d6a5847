// `dualgap data list [--json]` and `dualgap data fetch NAME... [--to DIR]`.
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/output_option.hpp"
#include "data/fetch/registry.hpp"

namespace dualgap::datafetch {

namespace {

const char* kUsage = R"(usage: dualgap data list [--json]
       dualgap data fetch NAME... [--to DIR]     (NAME: a data set of 'dualgap data list', or all)

fetch downloads into $DUALGAP_DATA/NAME/ (or DIR/NAME/), resumes partial downloads (*.part, HTTP
Range), and keeps a file only when its sha256 matches the registry (data/registry.yaml).
DUALGAP_DATA_MIRROR=URL fetches every file from URL/NAME/FILE instead of its public source.
)";

int list(const Registry& reg, bool as_json) {
  if (as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : reg.datasets) {
      nlohmann::json files = nlohmann::json::array();
      for (const auto& f : d.files)
        files.push_back({{"path", f.path}, {"bytes", f.bytes}, {"sha256", f.sha256},
                         {"sha256_uncompressed", f.sha256_uncompressed}, {"urls", f.urls}});
      out.push_back({{"name", d.name}, {"title", d.title}, {"format", d.format}, {"licence", d.licence},
                     {"paper", d.paper}, {"ours", d.ours}, {"source", d.source}, {"used_by", d.used_by},
                     {"files", files}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "registry: " << reg.path << "\n";
  for (const auto& d : reg.datasets) {
    long long bytes = 0;
    bool known = true;
    for (const auto& f : d.files) {
      if (f.bytes < 0) known = false;
      bytes += std::max(0LL, f.bytes);
    }
    std::cout << fmt::format("\n{}: {}\n  files:    {}{}\n  format:   {}\n  source:   {}\n  licence:  {}\n  paper:    {}\n"
                             "  ours:     {}\n  used by:  {}\n",
                             d.name, d.title, d.files.size(),
                             known ? fmt::format(", {:.2f} MB", bytes / 1048576.0) : std::string(), d.format, d.source,
                             d.licence, d.paper, d.ours, d.used_by.empty() ? "tests only" : fmt::format("{}", fmt::join(d.used_by, ", ")));
  }
  return 0;
}

}  // namespace

int data_main(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  Registry reg = read_registry(find_registry());
  const std::string sub = args[0];
  if (sub == "list") {
    bool as_json = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--json") as_json = true;
      else {
        std::cerr << "dualgap data list: unknown argument '" << args[i] << "'\n" << kUsage;
        return 2;
      }
    }
    return list(reg, as_json);
  }
  if (sub != "fetch") {
    std::cerr << "dualgap data: unknown subcommand '" << sub << "'\n" << kUsage;
    return 2;
  }
  FetchOptions opt;
  std::vector<std::string> names;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--to" || args[i].rfind("--to=", 0) == 0) {
      if (args[i] == "--to" && i + 1 >= args.size()) {
        std::cerr << "dualgap data fetch: --to needs a folder\n";
        return 2;
      }
      opt.to = args[i] == "--to" ? args[++i] : args[i].substr(5);
      if (opt.to.empty()) {  // not the current folder, nor DUALGAP_DATA: refused
        std::cerr << "dualgap data fetch: " << empty_output_message("--to") << "\n";
        return 2;
      }
    } else if (!args[i].empty() && args[i][0] == '-') {
      std::cerr << "dualgap data fetch: unknown option '" << args[i] << "'\n" << kUsage;
      return 2;
    } else {
      names.push_back(args[i]);
    }
  }
  if (names.empty()) {
    std::cerr << "dualgap data fetch: name at least one data set (or all)\n" << kUsage;
    return 2;
  }
  if (opt.to.empty()) {
    const char* root = std::getenv("DUALGAP_DATA");
    if (!root || !*root) {
      std::cerr << "dualgap data fetch: set DUALGAP_DATA to the data folder or give --to DIR\n";
      return 2;
    }
    opt.to = root;
  }
  if (const char* m = std::getenv("DUALGAP_DATA_MIRROR"); m && *m) opt.mirror = m;
  std::vector<const Dataset*> chosen;
  for (const auto& n : names) {
    if (n == "all") {
      for (const auto& d : reg.datasets) chosen.push_back(&d);
      continue;
    }
    const Dataset* d = reg.find(n);
    if (!d) {
      std::string known;
      for (const auto& x : reg.datasets) known += (known.empty() ? "" : ", ") + x.name;
      std::cerr << fmt::format("dualgap data fetch: unknown data set '{}' (known: {})\n", n, known);
      return 2;
    }
    chosen.push_back(d);
  }
  int failed = 0;
  for (const Dataset* d : chosen) failed += fetch_dataset(*d, opt, std::cout);
  return failed > 0 ? 1 : 0;
}

}  // namespace dualgap::datafetch
