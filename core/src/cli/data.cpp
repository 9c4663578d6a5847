// `dualgap data list [--json]` and `dualgap data fetch NAME... [--to DIR]`.
#include <charconv>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/output_option.hpp"
#include "data/fetch/registry.hpp"
#include "base/util.hpp"

namespace dualgap::datafetch {

namespace {

const char* kUsage = R"(usage: dualgap data list [--json]
       dualgap data fetch NAME... [--to DIR] [limits]   (NAME: a data set of 'dualgap data list', or all)

fetch downloads into $DUALGAP_DATA/NAME/ (or DIR/NAME/), resumes partial downloads (*.part, HTTP
Range), and keeps a file only when its sha256 matches the registry (data/registry.yaml).
DUALGAP_DATA_MIRROR=URL fetches every file from URL/NAME/FILE instead of its public source.

limits (a server that sends too much, or too slowly, is stopped):
  --timeout S          most seconds one file may take (default 600; 0: no limit)
  --low-speed B        end a transfer slower than B bytes/s for --low-speed-time seconds (default 1024)
  --low-speed-time S   (default 30)
  --max-bytes N        most bytes of a file whose size the registry does not state (default 1073741824);
                       a file's registered size caps its download
)";

/// A whole non-negative integer argument of an option, or exit 2 naming it.
bool option_number(const std::string& option, const std::string& text, long long max, long long& out) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || out < 0 || out > max) {
    std::cerr << fmt::format("dualgap data fetch: {} '{}': expected a whole number from 0 to {}\n", option, text, max);
    return false;
  }
  return true;
}

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
  Registry reg;
  try {
    reg = read_registry(find_registry());
  } catch (const std::exception& e) {  // the registry is configuration: bad, it is exit 2
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
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
    } else if (args[i] == "--timeout" || args[i] == "--low-speed" || args[i] == "--low-speed-time" ||
               args[i] == "--max-bytes") {
      const std::string option = args[i];
      if (i + 1 >= args.size()) {
        std::cerr << "dualgap data fetch: " << option << " needs a number\n";
        return 2;
      }
      long long v = 0;
      const long long max = option == "--max-bytes" ? (1LL << 50) : 1000000000LL;
      if (!option_number(option, args[++i], max, v)) return 2;
      if (option == "--timeout") opt.timeout_seconds = static_cast<long>(v);
      else if (option == "--low-speed") opt.low_speed_bytes = static_cast<long>(v);
      else if (option == "--low-speed-time") opt.low_speed_seconds = static_cast<long>(v);
      else opt.max_bytes = v;
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
  if (const char* m = std::getenv("DUALGAP_DATA_MIRROR"); m && *m) {
    opt.mirror = m;
    // Web sources only, as in the registry (libcurl is also limited to http and https).
    bool web = opt.mirror.rfind("http://", 0) == 0 || opt.mirror.rfind("https://", 0) == 0;
    for (unsigned char c : opt.mirror) web = web && c > 0x20 && c != 0x7f;
    if (!web) {
      std::cerr << fmt::format("dualgap data fetch: DUALGAP_DATA_MIRROR '{}': expected an http:// or https:// URL\n",
                               printable(opt.mirror));
      return 2;
    }
  }
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
  // Every line at once: a slow download is watched as it happens (also through a pipe).
  std::cout << std::unitbuf;
  int failed = 0;
  for (const Dataset* d : chosen) failed += fetch_dataset(*d, opt, std::cout);
  return failed > 0 ? 1 : 0;
}

}  // namespace dualgap::datafetch
