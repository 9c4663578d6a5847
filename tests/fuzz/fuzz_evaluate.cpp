// libFuzzer: run.json reading in `dualgap evaluate` (the evaluate command on a run folder, with no
// plugins: every input stops at the checked reader, at the config checks, or at the lookup of
// its dataset plugin). Whatever the input, the run is reported as not re-scored (exit 1) and
// its run.json is left exactly as it was.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "base/util.hpp"
#include "cli/command.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace fs = std::filesystem;
  static const fs::path run = [] {
    auto d = fs::temp_directory_path() / ("dualgap-fuzz-" + std::to_string(::getpid())) / "exp" / "r0";
    fs::create_directories(d);
    return d;
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::ofstream(run / "run.json", std::ios::binary | std::ios::trunc) << text;
  std::ostringstream out, err;
  auto* cout_buf = std::cout.rdbuf(out.rdbuf());
  auto* cerr_buf = std::cerr.rdbuf(err.rdbuf());
  const int code = dualgap::cli::run_command("evaluate", {run.string()});
  std::cout.rdbuf(cout_buf);
  std::cerr.rdbuf(cerr_buf);
  if (code != 1 || dualgap::read_file((run / "run.json").string()) != text) __builtin_trap();
  if (err.str().find("run.json") == std::string::npos) __builtin_trap();  // the file is named
  return 0;
}
