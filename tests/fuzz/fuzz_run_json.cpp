// libFuzzer: run.json reading in `dualgap compare` (load_runs on a folder holding one run.json).
#include <filesystem>

#include "compare/model.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file = fuzz::write_input("run.json", data, size);
  try {
    dualgap::compare::load_runs({std::filesystem::path(file).parent_path().string()});
  } catch (const std::runtime_error&) {  // a clear refusal (the compare CLI prints it, exit 1)
  }
  return 0;
}
