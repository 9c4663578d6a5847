// The identity of a run for resuming: what must match for `run` to skip a finished run.
#pragma once

#include <string>

#include "experiment/config.hpp"

namespace dualgap {

/// The config hash of a run: resolved config + plugin binaries + data file checksums + seeds.
DUALGAP_API std::string config_hash(const RunSpec& run, const PluginRegistry& reg);

}  // namespace dualgap
