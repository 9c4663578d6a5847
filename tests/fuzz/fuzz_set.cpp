// libFuzzer: the --set parser: each input line is one KEY=VALUE override of a fixed valid
// experiment (dotted keys, list indices, solver names, sweep keys, YAML values).
#include <sstream>

#include "experiment/config.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const dualgap::PluginRegistry none;
  static const std::string base = [] {
    const std::string y =
        "name: f\ndata: {plugin: synthetic_multiclass, n: 10}\noracle: {plugin: multiclass}\nsolvers:\n"
        "  - {name: A, plugin: bcfw, params: {M: 2}}\n  - {name: B, plugin: bcfw}\nstop: {max_passes: 2}\n"
        "record: {every: 1}\nsweep:\n  problem.lambda: [0.1, 1]\n";
    return fuzz::write_input("base.yaml", reinterpret_cast<const std::uint8_t*>(y.data()), y.size());
  }();
  dualgap::ExpandOptions opts;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(in, line);) opts.sets.push_back(line);
  try {
    dualgap::expand_experiment(base, opts, none);
  } catch (const dualgap::ConfigError&) {
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).find("plugin named") == std::string::npos) throw;
  }
  return 0;
}
