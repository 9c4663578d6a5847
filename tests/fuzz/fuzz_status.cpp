// libFuzzer: run.json reading in `dualgap status` (status --json on an experiment folder
// holding one run): every run is counted exactly once, under the status its run.json records
// when the checked reader accepts it, else as damaged (never under no status at all).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "dualgap/json.hpp"

#include "run/run_files.hpp"
#include "cli/command.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace fs = std::filesystem;
  static const fs::path exp = [] {
    auto d = fs::temp_directory_path() / ("dualgap-fuzz-" + std::to_string(::getpid())) / "exp";
    fs::create_directories(d / "r0");
    return d;
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::ofstream(exp / "r0" / "run.json", std::ios::binary | std::ios::trunc) << text;
  std::string expected = "damaged";
  try {
    expected = dualgap::parse_run_file(text, "run.json", dualgap::CurveMode::columns).doc["status"].get<std::string>();
  } catch (const dualgap::RunFileError&) {
  }
  std::ostringstream out, err;
  auto* cout_buf = std::cout.rdbuf(out.rdbuf());
  auto* cerr_buf = std::cerr.rdbuf(err.rdbuf());
  const int code = dualgap::cli::run_command("status", {exp.string(), "--json"});
  std::cout.rdbuf(cout_buf);
  std::cerr.rdbuf(cerr_buf);
  const auto report = nlohmann::json::parse(out.str());
  if (code != 0 || report.size() != 1 || report[0]["runs"] != 1) __builtin_trap();
  int counted = 0;
  for (auto& [status, n] : report[0]["counts"].items()) {
    counted += n.get<int>();
    if (n.get<int>() == 1 && status != expected) __builtin_trap();
  }
  if (counted != 1) __builtin_trap();
  // a damaged run is named on stderr
  if (expected == "damaged" && err.str().find("run.json") == std::string::npos) __builtin_trap();
  return 0;
}
