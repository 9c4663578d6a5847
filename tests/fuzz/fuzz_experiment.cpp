// libFuzzer: the YAML experiment loader (load_yaml, then the checks of expand_experiment with
// no plugins: names, seeds, repeats, sweeps, stop and record stop at the first plugin lookup).
#include "experiment/config.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const dualgap::PluginRegistry none;
  const std::string path = fuzz::write_input("experiment.yaml", data, size);
  try {
    dualgap::expand_experiment(path, {}, none);
  } catch (const dualgap::ConfigError&) {
  } catch (const std::runtime_error& e) {  // only the registry's "no dataset plugin named"
    if (std::string(e.what()).find("plugin named") == std::string::npos) throw;
  }
  return 0;
}
