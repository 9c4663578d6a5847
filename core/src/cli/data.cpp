// `dualgap data list [--json]` and `dualgap data fetch NAME... [--to DIR] [limits]`.
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "base/util.hpp"
#include "cli/entries.hpp"
#include "data/fetch/registry.hpp"
#include "dualgap/json.hpp"

namespace dualgap::cli {

namespace {

using datafetch::Dataset;
using datafetch::Registry;

int list_datasets(const Registry& reg, bool as_json) {
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
    std::cout << json_text(out, 2) << "\n";
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


const char* const kFetchOptions[] = {"to", "timeout", "low-speed", "low-speed-time", "max-bytes"};

/// The data sets NAME... of the registry ("all": every one).
std::vector<const Dataset*> chosen_datasets(const Registry& reg, const std::vector<std::string>& names) {
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
      throw bad_value("NAME", n, "a data set of the registry (" + known + "), or all");
    }
    chosen.push_back(d);
  }
  return chosen;
}

/// Where and how to fetch: --to or $DUALGAP_DATA, the limits, $DUALGAP_DATA_MIRROR.
datafetch::FetchOptions fetch_options(const Args& a) {
  datafetch::FetchOptions opt;
  opt.to = a.text("to");
  if (opt.to.empty()) {
    const char* root = std::getenv("DUALGAP_DATA");
    if (!root || !*root) throw UsageError("set DUALGAP_DATA to the data folder or give --to DIR");
    opt.to = root;
  }
  if (auto v = a.maybe<long long>("timeout")) opt.timeout_seconds = static_cast<long>(*v);
  if (auto v = a.maybe<long long>("low-speed")) opt.low_speed_bytes = static_cast<long>(*v);
  if (auto v = a.maybe<long long>("low-speed-time")) opt.low_speed_seconds = static_cast<long>(*v);
  if (auto v = a.maybe<long long>("max-bytes")) opt.max_bytes = *v;
  if (const char* m = std::getenv("DUALGAP_DATA_MIRROR"); m && *m) {
    opt.mirror = m;
    // Web sources only, as in the registry (libcurl is also limited to http and https).
    bool web = opt.mirror.rfind("http://", 0) == 0 || opt.mirror.rfind("https://", 0) == 0;
    for (unsigned char c : opt.mirror) web = web && c > 0x20 && c != 0x7f;
    if (!web) throw bad_value("DUALGAP_DATA_MIRROR", opt.mirror, "an http:// or https:// URL");
  }
  return opt;
}

}  // namespace

void data_options(po::options_description& d) {
  const long long most = 1000000000LL;
  d.add_options()("json", "list: machine-readable output")("to", output_path(),
                                                            "fetch: the data folder (default: $DUALGAP_DATA)")(
      "timeout", whole64(0, most), "fetch: most seconds one file may take (default 600; 0: no limit)")(
      "low-speed", whole64(0, most),
      "fetch: end a transfer slower than B bytes/s for --low-speed-time seconds (default 1024)")(
      "low-speed-time", whole64(0, most), "fetch: (default 30)")(
      "max-bytes", whole64(0, 1LL << 50),
      "fetch: most bytes of a file whose size the registry does not state (default 1073741824)");
}

int data_main(const Args& a) {
  // The registry is configuration: a bad one is exit 2, at its location.
  const Registry reg = as_configuration([] { return datafetch::read_registry(datafetch::find_registry()); });
  const auto names = a.list("names");
  if (a.text("action") == "list") {
    if (!names.empty()) throw UsageError(fmt::format("list takes no NAME, found '{}'", printable(names.front())));
    for (const char* o : kFetchOptions)
      if (a.has(o)) throw UsageError(fmt::format("--{} applies to 'data fetch', not to 'data list'", o));
    return list_datasets(reg, a.has("json"));
  }
  if (a.has("json")) throw UsageError("--json applies to 'data list', not to 'data fetch'");
  if (names.empty()) throw UsageError("NAME missing: expected a data set of 'dualgap data list', or all");
  const auto opt = fetch_options(a);
  const auto chosen = chosen_datasets(reg, names);
  // Every line at once: a slow download is watched as it happens (also through a pipe).
  std::cout << std::unitbuf;
  int failed = 0;
  for (const Dataset* d : chosen) failed += datafetch::fetch_dataset(*d, opt, std::cout);
  return failed > 0 ? 1 : 0;
}

}  // namespace dualgap::cli
