// libFuzzer: run.json reading in `dualgap compare` and `dualgap check` (load_runs on a folder
// holding one run.json: the checked reader, then grouping and bounds), and what both compute
// from a run that was read (the epsilon tables, the resampled curves): a damaged file must be
// a warning naming it, and a file the reader accepts must never take a later step down.
#include <filesystem>

#include "compare/model.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dualgap::compare;
  const std::string file = fuzz::write_input("run.json", data, size);
  try {
    RunSet set = load_runs({std::filesystem::path(file).parent_path().string()});
    if (set.runs.empty()) {
      // refused: the warning names the file
      if (set.warnings.size() != 1 || set.warnings[0].find(file) == std::string::npos) __builtin_trap();
      return 0;
    }
    const Options options;
    for (const char* y : {"primal_subopt", "gap", "test_error"}) (void)compute_tables(set, y, {1e-1, 1e-3}, options);
    for (const auto& p : set.problems)
      for (const char* x : {"passes", "time"}) (void)make_curves(set, p, x, "primal_subopt", options);
  } catch (const std::runtime_error&) {  // a clear refusal (the compare CLI prints it, exit 1)
  }
  return 0;
}
